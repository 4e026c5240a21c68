import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../schema/bigint-as-number.js';

/** One row of `commitbus_order_keys`: the last position given to an order key's events. */
export interface OrderKeyRecord {
  /** The order key, e.g. `record:42`. */
  orderKey: string;
  /** The position of the key's last committed event. */
  lastPosition: number;
}

/**
 * The `commitbus_order_keys` table: a unit of work that sends ordered events
 * bumps its keys' rows just before commit, so units of work on one key
 * commit one after the other and their events' positions are commit order.
 * Part of `COMMITBUS_ENTITIES`.
 */
export const OrderKeyRecordEntity = new EntitySchema<OrderKeyRecord>({
  name: 'CommitbusOrderKeyRecord',
  tableName: 'commitbus_order_keys',
  columns: {
    orderKey: { name: 'order_key', type: 'varchar', length: 512, primary: true },
    lastPosition: { name: 'last_position', type: 'bigint', transformer: bigintAsNumber },
  },
});
