import type { HandlerJob } from '../../handlers/handler-job.js';
import { countJobs, type HandlerJobCounts, jobStateOf } from '../../handlers/handler-job-counts.js';
import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import { SqlJobEntity } from './schema/job.entity.js';
import type { SqlDb } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** A job a worker claimed: the job, and the runs it made before this claim. */
export interface ClaimedSqlJob {
  /** The job as it was enqueued (or as {@link SqlHandlerJobQueue.retryAt} last stored it). */
  readonly job: HandlerJob;
  /** Runs made before this one (what {@link SqlHandlerJobQueue.retryAt} last recorded). */
  readonly attemptsMade: number;
}

/**
 * The `HandlerJobQueue` port on the `commitbus_jobs` table. A row is a job;
 * a worker leases rows by setting `locked_by` and `locked_until` (database
 * clock), so a lease that runs out (its worker died) makes the job claimable
 * again. Job ids are unique per bus: enqueueing an id already there adds
 * nothing.
 */
export class SqlHandlerJobQueue implements HandlerJobQueue {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly wakeups: SqlWakeups,
  ) {}

  /** `commitbus_jobs`, qualified by the DataSource's schema. */
  get table(): string {
    return sqlTableName(this.db, SqlJobEntity);
  }

  async enqueue(jobs: readonly HandlerJob[]): Promise<void> {
    const unique = [...new Map(jobs.map((j) => [j.jobId, j])).values()];
    if (unique.length === 0) return;
    const now = this.db.now;
    const values = unique.map(() => `(?, ?, ?, ?, ?, ${now} + ?, 0, ${now})`).join(', ');
    const params = unique.flatMap((j) => [
      this.bus,
      j.jobId,
      j.handler,
      j.kind,
      JSON.stringify(j),
      j.delayMs,
    ]);
    await this.db.transaction(async (tx) => {
      await tx.execute(
        `INSERT INTO ${this.table} (bus, job_id, handler, kind, data, run_at, attempts_made, created_at)
         VALUES ${values} ON CONFLICT (bus, job_id) DO NOTHING`,
        params,
      );
      await this.wakeups.notifyIn(tx, 'jobs');
    });
    this.wakeups.local('jobs');
  }

  async hasUnfinished(): Promise<boolean> {
    const rows = await this.db.query(`SELECT 1 AS one FROM ${this.table} WHERE bus = ? LIMIT 1`, [this.bus]);
    return rows.length > 0;
  }

  async counts(): Promise<HandlerJobCounts> {
    const rows = await this.db.query<{ data: string; attempts_made: unknown; running: unknown }>(
      `SELECT data, attempts_made,
         CASE WHEN locked_until IS NOT NULL AND locked_until > ${this.db.now} THEN 1 ELSE 0 END AS running
       FROM ${this.table} WHERE bus = ?`,
      [this.bus],
    );
    return countJobs(
      rows.map((row) =>
        jobStateOf(JSON.parse(row.data) as HandlerJob, Number(row.attempts_made), Number(row.running) === 1),
      ),
    );
  }

  /**
   * For workers: leases up to `max` due jobs no one holds (never leased, or
   * their lease ran out) to `worker` for `leaseMs`, earliest `run_at` first.
   * On PostgreSQL concurrent claims skip each other's rows
   * (`FOR UPDATE SKIP LOCKED`); on SQLite the claim runs in a
   * `BEGIN IMMEDIATE` transaction. Does not count a run: the worker records
   * runs with {@link SqlHandlerJobQueue.retryAt}.
   */
  async claim(worker: string, max: number, leaseMs: number): Promise<ClaimedSqlJob[]> {
    if (max <= 0) return [];
    const now = this.db.now;
    const due = `SELECT job_id FROM ${this.table}
      WHERE bus = ? AND run_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
      ORDER BY run_at, job_id LIMIT ?`;
    // PostgreSQL: the picked ids are materialized once, so the update takes exactly those rows.
    const postgres = this.db.dialect === 'postgres';
    const sql = postgres
      ? `WITH picked AS MATERIALIZED (${due} FOR UPDATE SKIP LOCKED)
         UPDATE ${this.table} AS j SET locked_by = ?, locked_until = ${now} + ?
         FROM picked WHERE j.bus = ? AND j.job_id = picked.job_id
         RETURNING j.data, j.attempts_made`
      : `UPDATE ${this.table} SET locked_by = ?, locked_until = ${now} + ?
         WHERE bus = ? AND job_id IN (${due}) RETURNING data, attempts_made`;
    const params = postgres
      ? [this.bus, max, worker, leaseMs, this.bus]
      : [worker, leaseMs, this.bus, this.bus, max];
    const rows = await this.db.transaction((tx) =>
      tx.query<{ data: string; attempts_made: unknown }>(sql, params),
    );
    return rows.map((row) => ({
      job: JSON.parse(row.data) as HandlerJob,
      attemptsMade: Number(row.attempts_made),
    }));
  }

  /** For workers: a job is done (ran, or was dead-lettered); removes its row. Resolves to whether there was one. */
  async complete(jobId: string): Promise<boolean> {
    return (
      (await this.db.execute(`DELETE FROM ${this.table} WHERE bus = ? AND job_id = ?`, [this.bus, jobId])) > 0
    );
  }

  /**
   * For workers: a run failed and the job runs again at `runAt` (epoch ms):
   * releases its lease and stores `attemptsMade` and `job` (its failures
   * appended). Resolves to whether the job was there.
   */
  async retryAt(jobId: string, runAt: number, attemptsMade: number, job: HandlerJob): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE ${this.table} SET run_at = ?, attempts_made = ?, data = ?, locked_by = NULL, locked_until = NULL
       WHERE bus = ? AND job_id = ?`,
      [runAt, attemptsMade, JSON.stringify(job), this.bus, jobId],
    );
    return changed > 0;
  }

  /**
   * For workers: extends `worker`'s leases on `jobIds` to `leaseMs` from now
   * (database clock). A job whose lease `worker` no longer holds is left
   * alone. Resolves to how many leases were extended.
   */
  async extend(worker: string, jobIds: readonly string[], leaseMs: number): Promise<number> {
    if (jobIds.length === 0) return 0;
    return this.db.execute(
      `UPDATE ${this.table} SET locked_until = ${this.db.now} + ?
       WHERE bus = ? AND locked_by = ? AND job_id IN (${jobIds.map(() => '?').join(', ')})`,
      [leaseMs, this.bus, worker, ...jobIds],
    );
  }
}
