import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_lane_workers`: a worker of ordered lanes and its lease. */
export interface SqlLaneWorkerRow {
  /** The bus. */
  bus: string;
  /** The worker's id. */
  worker: string;
  /** When (epoch ms, database clock) its lease ends; 0 once it left. */
  leaseUntil: number;
}

/**
 * The `commitbus_lane_workers` table: the leases of the workers that own
 * lanes; the upkeep hands an expired worker's lanes back and removes its
 * row. Part of `COMMITBUS_ENTITIES`.
 */
export const SqlLaneWorkerEntity = new EntitySchema<SqlLaneWorkerRow>({
  name: 'CommitbusSqlLaneWorker',
  tableName: 'commitbus_lane_workers',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    worker: { name: 'worker', type: 'varchar', length: 255, primary: true },
    leaseUntil: { name: 'lease_until', type: 'bigint', transformer: bigintAsNumber },
  },
});
