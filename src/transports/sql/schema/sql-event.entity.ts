import { EntitySchema } from 'typeorm';

/** One event in the SQL transport's log (`commitbus_events`). */
export interface SqlEventRow {
  /** Auto-increment id: the log's entry id, in append order. */
  id: number;
  /** The bus the event was published on. */
  bus: string;
  /** The event's id. */
  eventId: string;
  /** The serialized envelope. */
  payload: string;
  /** Epoch ms until which the event is delayed; null when deliverable. */
  deliverAt: number | null;
  /** Epoch ms (database clock) when appended. */
  createdAt: number;
  /** The drain holding the event, or null when not yet read. */
  lockedBy: string | null;
  /** Epoch ms (database clock) when last handed to a drain. */
  lockedAt: number | null;
  /** Times handed to a drain. */
  deliveries: number;
  /** The token of the claim holding the event: only that claim may acknowledge it. */
  lease: string | null;
}

const bigint = {
  to: (v: number | null) => v,
  from: (v: string | number | null) => (v === null ? null : Number(v)),
};

/**
 * The `commitbus_events` table: published events waiting for a drain,
 * deleted when acknowledged. Part of `COMMITBUS_ENTITIES`.
 */
export const SqlEventEntity = new EntitySchema<SqlEventRow>({
  name: 'CommitbusSqlEvent',
  tableName: 'commitbus_events',
  columns: {
    id: { name: 'id', type: 'integer', primary: true, generated: 'increment' },
    bus: { name: 'bus', type: 'varchar', length: 255 },
    eventId: { name: 'event_id', type: 'varchar', length: 128 },
    payload: { name: 'payload', type: 'text' },
    deliverAt: { name: 'deliver_at', type: 'bigint', nullable: true, transformer: bigint },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigint },
    lockedBy: { name: 'locked_by', type: 'varchar', length: 255, nullable: true },
    lockedAt: { name: 'locked_at', type: 'bigint', nullable: true, transformer: bigint },
    deliveries: { name: 'deliveries', type: 'integer', default: 0 },
    lease: { name: 'lease', type: 'varchar', length: 64, nullable: true },
  },
  indices: [
    { name: 'commitbus_events_claim', columns: ['bus', 'lockedAt', 'id'] },
    { name: 'commitbus_events_due', columns: ['bus', 'deliverAt'] },
  ],
});

/** One remembered event id of the dedupe window (`commitbus_event_ids`). */
export interface SqlEventIdRow {
  /** The bus. */
  bus: string;
  /** The accepted event id. */
  eventId: string;
  /** Epoch ms (database clock) from which the id may be accepted again. */
  expiresAt: number;
}

/** The `commitbus_event_ids` table: the dedupe window's ids. Part of `COMMITBUS_ENTITIES`. */
export const SqlEventIdEntity = new EntitySchema<SqlEventIdRow>({
  name: 'CommitbusSqlEventId',
  tableName: 'commitbus_event_ids',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    eventId: { name: 'event_id', type: 'varchar', length: 128, primary: true },
    expiresAt: { name: 'expires_at', type: 'bigint', transformer: bigint },
  },
  indices: [{ name: 'commitbus_event_ids_expires', columns: ['bus', 'expiresAt'] }],
});
