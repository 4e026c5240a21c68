import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_jobs`: one handler job of one bus. */
export interface SqlJobRow {
  /** The bus's name. */
  bus: string;
  /** The job's stable id (one row per id and bus). */
  jobId: string;
  /** The handler the job runs. */
  handler: string;
  /** `async` or `retry`. */
  kind: string;
  /** The `HandlerJob` as JSON. */
  data: string;
  /** Epoch ms (database clock) from which the job may run. */
  runAt: number;
  /** Runs made so far. */
  attemptsMade: number;
  /** The worker holding the job's lease, if any. */
  lockedBy: string | null;
  /** Epoch ms (database clock) when the lease ends, if leased. */
  lockedUntil: number | null;
  /** Epoch ms (database clock) when the job was added. */
  createdAt: number;
  /** The token of the claim holding the lease: only that claim may complete, retry or give up the job. */
  lease: string | null;
  /** Hand-outs of the current run: 1 when first claimed, one more each time an expired lease is claimed. */
  deliveries: number;
}

/**
 * The `commitbus_jobs` table of the SQL transport: handler jobs waiting,
 * delayed or leased by a worker. Part of `COMMITBUS_ENTITIES`.
 */
export const SqlJobEntity = new EntitySchema<SqlJobRow>({
  name: 'CommitbusSqlJob',
  tableName: 'commitbus_jobs',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    jobId: { name: 'job_id', type: 'varchar', length: 512, primary: true },
    handler: { name: 'handler', type: 'varchar', length: 255 },
    kind: { name: 'kind', type: 'varchar', length: 16 },
    data: { name: 'data', type: 'text' },
    runAt: { name: 'run_at', type: 'bigint', transformer: bigintAsNumber },
    attemptsMade: { name: 'attempts_made', type: 'integer', default: 0 },
    lockedBy: { name: 'locked_by', type: 'varchar', length: 255, nullable: true },
    lockedUntil: { name: 'locked_until', type: 'bigint', nullable: true, transformer: bigintAsNumber },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintAsNumber },
    lease: { name: 'lease', type: 'varchar', length: 64, nullable: true },
    deliveries: { name: 'deliveries', type: 'integer', default: 0 },
  },
  indices: [{ name: 'commitbus_jobs_claim', columns: ['bus', 'runAt'] }],
});
