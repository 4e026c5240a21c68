import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../schema/bigint-as-number.js';

/** One row of `commitbus_es_events`: the queue and the history in one table. */
export interface StoreEventRow {
  /** The event's version (primary key). */
  v: number;
  /** The event's type. */
  type: string;
  /** Epoch ms when it was dispatched. */
  ts: number;
  /** Its data as JSON (after preprocessing, once handled). */
  data: string;
  /** `queued`, `handled`, `skipped` or `ignored`. */
  status: string;
  /** Each model's result as JSON, once handled. */
  result: string | null;
  /** Its sub-events as JSON, once handled. */
  events: string | null;
  /** Its last failure as JSON. */
  error: string | null;
  /** Failed attempts. */
  attempts: number;
  /** Kept by pruning. */
  important: boolean;
  /** Operator actions as JSON. */
  audit: string | null;
  /** Bytes of `data` when dispatched. */
  size: number;
}

/**
 * The `commitbus_es_events` table: each event from dispatch (`queued`) to its
 * history (`handled`, `skipped`, `ignored`). Part of `COMMITBUS_ENTITIES`.
 */
export const StoreEventRowEntity = new EntitySchema<StoreEventRow>({
  name: 'CommitbusStoreEvent',
  tableName: 'commitbus_es_events',
  columns: {
    v: { name: 'v', type: 'bigint', primary: true, transformer: bigintAsNumber },
    type: { name: 'type', type: 'varchar', length: 255 },
    ts: { name: 'ts', type: 'bigint', transformer: bigintAsNumber },
    data: { name: 'data', type: 'text' },
    status: { name: 'status', type: 'varchar', length: 16 },
    result: { name: 'result', type: 'text', nullable: true },
    events: { name: 'events', type: 'text', nullable: true },
    error: { name: 'error', type: 'text', nullable: true },
    attempts: { name: 'attempts', type: 'integer' },
    important: { name: 'important', type: 'boolean' },
    audit: { name: 'audit', type: 'text', nullable: true },
    size: { name: 'size', type: 'integer' },
  },
  indices: [{ name: 'commitbus_es_events_ts', columns: ['ts'] }],
});
