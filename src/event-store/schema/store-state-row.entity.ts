import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../schema/bigint-as-number.js';

/** The one row of `commitbus_es_state`: the queue's last version, the handled version, the writer. */
export interface StoreStateRow {
  /** The store's name (`default`). */
  id: string;
  /** The last version dispatched (committed). */
  queued: number;
  /** The last version handled: the tables are at this version. */
  handled: number;
  /** The process holding the writer lease (SQLite), or null. */
  writer: string | null;
  /** Epoch ms the lease runs to, or null. */
  leaseUntil: number | null;
}

/**
 * The `commitbus_es_state` table. Dispatchers take versions from `queued`
 * (its row lock orders them, so versions have no gaps and commit in order);
 * the writer moves `handled` in the same transaction as an event's writes.
 */
export const StoreStateRowEntity = new EntitySchema<StoreStateRow>({
  name: 'CommitbusStoreState',
  tableName: 'commitbus_es_state',
  columns: {
    id: { name: 'id', type: 'varchar', length: 64, primary: true },
    queued: { name: 'queued', type: 'bigint', transformer: bigintAsNumber },
    handled: { name: 'handled', type: 'bigint', transformer: bigintAsNumber },
    writer: { name: 'writer', type: 'varchar', length: 128, nullable: true },
    leaseUntil: { name: 'lease_until', type: 'bigint', nullable: true, transformer: bigintAsNumber },
  },
});
