import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_lane_events`: an ordered event waiting in its lane at its position. */
export interface SqlLaneEventRow {
  /** The bus. */
  bus: string;
  /** The lane. */
  lane: string;
  /** Its position in the lane. */
  position: number;
  /** The serialized event. */
  payload: string;
  /** Async lanes: the `seq` the sync lane gave it. */
  seq: number | null;
  /** Async lanes: the `seq` of the key's event before it. */
  prev: number | null;
}

/**
 * The `commitbus_lane_events` table: ordered events waiting in lanes, one
 * row per position (a position published twice is one row), deleted when
 * done. Part of `COMMITBUS_ENTITIES`.
 */
export const SqlLaneEventEntity = new EntitySchema<SqlLaneEventRow>({
  name: 'CommitbusSqlLaneEvent',
  tableName: 'commitbus_lane_events',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    lane: { name: 'lane', type: 'varchar', length: 1024, primary: true },
    position: { name: 'position', type: 'bigint', primary: true, transformer: bigintAsNumber },
    payload: { name: 'payload', type: 'text' },
    seq: { name: 'seq', type: 'bigint', nullable: true, transformer: bigintAsNumber },
    prev: { name: 'prev', type: 'bigint', nullable: true, transformer: bigintAsNumber },
  },
});
