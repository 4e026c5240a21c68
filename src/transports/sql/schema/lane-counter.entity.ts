import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** The row of `commitbus_lane_counters` of one bus. */
export interface SqlLaneCounterRow {
  /** The bus. */
  bus: string;
  /** The last `seq` given to a sync lane's event. */
  seq: number;
  /** Re-bases since the count began (it only grows). */
  rebases: number;
}

/**
 * The `commitbus_lane_counters` table: one row per bus, which every
 * worker-side change of the lanes locks (after the lanes it changes), so
 * ownerships and leases change one transaction at a time. Part of
 * `COMMITBUS_ENTITIES`.
 */
export const SqlLaneCounterEntity = new EntitySchema<SqlLaneCounterRow>({
  name: 'CommitbusSqlLaneCounter',
  tableName: 'commitbus_lane_counters',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    seq: { name: 'seq', type: 'bigint', default: 0, transformer: bigintAsNumber },
    rebases: { name: 'rebases', type: 'bigint', default: 0, transformer: bigintAsNumber },
  },
});
