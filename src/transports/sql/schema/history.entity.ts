import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_history`: what one bus's processes recorded in one minute. */
export interface SqlHistoryRow {
  /** The bus's name. */
  bus: string;
  /** The minute's start, epoch ms on the database's clock. */
  minute: number;
  /** Events published. */
  published: number;
  /** Handler runs that succeeded. */
  handled: number;
  /** Handler runs that failed. */
  failed: number;
  /** Failed runs scheduled again. */
  retried: number;
  /** Dead letters stored. */
  deadLettered: number;
  /** The largest backlog sampled, or null. */
  backlog: number | null;
  /** The largest age of the oldest waiting event sampled, ms, or null. */
  backlogAgeMs: number | null;
}

const nullableBigint = {
  to: (v: number | null) => v,
  from: (v: string | number | null) => (v === null ? null : Number(v)),
};

/** The `commitbus_history` table: a bus's counts per minute, the last 24 hours. Part of `COMMITBUS_ENTITIES`. */
export const SqlHistoryEntity = new EntitySchema<SqlHistoryRow>({
  name: 'CommitbusSqlHistory',
  tableName: 'commitbus_history',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    minute: { name: 'minute', type: 'bigint', primary: true, transformer: bigintAsNumber },
    published: { name: 'published', type: 'bigint', default: 0, transformer: bigintAsNumber },
    handled: { name: 'handled', type: 'bigint', default: 0, transformer: bigintAsNumber },
    failed: { name: 'failed', type: 'bigint', default: 0, transformer: bigintAsNumber },
    retried: { name: 'retried', type: 'bigint', default: 0, transformer: bigintAsNumber },
    deadLettered: { name: 'dead_lettered', type: 'bigint', default: 0, transformer: bigintAsNumber },
    backlog: { name: 'backlog', type: 'bigint', nullable: true, transformer: nullableBigint },
    backlogAgeMs: { name: 'backlog_age_ms', type: 'bigint', nullable: true, transformer: nullableBigint },
  },
});
