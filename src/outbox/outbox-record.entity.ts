import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../schema/bigint-as-number.js';

/** One outbox row: an event committed and not yet known to be published. */
export interface OutboxRecord {
  /** The event's id. */
  eventId: string;
  /** Epoch ms when the unit of work wrote the row (the same for all its events). */
  createdAt: number;
  /** Registration order within its unit of work. */
  position: number;
  /** The event's handling key, for people reading the table. */
  handlingKey: string;
  /** The serialized event. */
  payload: string;
  /** Epoch ms before which the event must not be handled, or null. */
  deliverAt: number | null;
}

/**
 * The `commitbus_outbox` table. Add it to your DataSource with
 * `COMMITBUS_ENTITIES`, and create it with `COMMITBUS_MIGRATIONS` (or `synchronize`).
 * Rows are relayed in `(created_at, position)` order: write order, and
 * registration order within a unit of work.
 */
export const OutboxRecordEntity = new EntitySchema<OutboxRecord>({
  name: 'CommitbusOutboxRecord',
  tableName: 'commitbus_outbox',
  columns: {
    eventId: { name: 'event_id', type: 'varchar', length: 128, primary: true },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintAsNumber },
    position: { name: 'position', type: 'integer' },
    handlingKey: { name: 'handling_key', type: 'varchar', length: 255 },
    payload: { name: 'payload', type: 'text' },
    deliverAt: { name: 'deliver_at', type: 'bigint', nullable: true, transformer: bigintAsNumber },
  },
  indices: [{ name: 'commitbus_outbox_created_at', columns: ['createdAt', 'position'] }],
});
