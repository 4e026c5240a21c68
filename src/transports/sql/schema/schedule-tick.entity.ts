import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_schedule_ticks`: the last claimed tick of one schedule of one bus. */
export interface SqlScheduleTickRow {
  /** The bus's name. */
  bus: string;
  /** The schedule's name. */
  name: string;
  /** The last claimed tick, epoch ms. */
  tickAt: number;
}

/** The `commitbus_schedule_ticks` table of schedules' last ticks. Part of `COMMITBUS_ENTITIES`. */
export const SqlScheduleTickEntity = new EntitySchema<SqlScheduleTickRow>({
  name: 'CommitbusSqlScheduleTick',
  tableName: 'commitbus_schedule_ticks',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    name: { name: 'name', type: 'varchar', length: 255, primary: true },
    tickAt: { name: 'tick_at', type: 'bigint', transformer: bigintAsNumber },
  },
});
