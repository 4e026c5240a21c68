import { randomBytes } from 'node:crypto';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { countJobs, type HandlerJobCounts, jobStateOf } from '../../handlers/handler-job-counts.js';
import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import { SqlJobEntity } from './schema/job.entity.js';
import type { SqlDb, SqlRunner } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';
import type { SqlWakeups } from './sql-wakeups.js';

/** A job a worker claimed: the job, the runs it made before this claim, and the claim's lease. */
export interface ClaimedSqlJob {
  /** The job as it was enqueued (or as {@link SqlHandlerJobQueue.retryAfter} last stored it). */
  readonly job: HandlerJob;
  /** Runs made before this one (what {@link SqlHandlerJobQueue.retryAfter} last recorded). */
  readonly attemptsMade: number;
  /** Hand-outs of this run, this one included: one more each time an expired lease was claimed. */
  readonly deliveries: number;
  /** The claim's token: complete, retry and extend take effect only while it holds the lease. */
  readonly lease: string;
}

/** One claim of a job: its id and the claim's lease token. */
export interface SqlJobLease {
  /** The job's id. */
  readonly jobId: string;
  /** The claim's token, from {@link ClaimedSqlJob.lease}. */
  readonly lease: string;
}

/** Leases renewed per statement: 2 parameters each, far under both databases' limits. */
const EXTEND_CHUNK = 1_000;

/** Only the claim holding `lease` (when given) may change the row. */
function heldBy(lease: string | undefined): string {
  return lease === undefined ? '' : ' AND lease = ?';
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
   * runs with {@link SqlHandlerJobQueue.retryAfter}. Each claim has a new lease
   * token; claiming an expired lease counts a delivery (its worker died or
   * stalled), so a job that kills its worker reaches `maxDeliveries`.
   */
  async claim(worker: string, max: number, leaseMs: number): Promise<ClaimedSqlJob[]> {
    if (max <= 0) return [];
    const now = this.db.now;
    const lease = randomBytes(12).toString('hex');
    // SET reads the row as it was: a lease still set (expired) is a worker that died or stalled.
    const take = `locked_by = ?, locked_until = ${now} + ?, lease = ?,
      deliveries = CASE WHEN locked_until IS NULL THEN 1 ELSE deliveries + 1 END`;
    const due = `SELECT job_id FROM ${this.table}
      WHERE bus = ? AND run_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
      ORDER BY run_at, job_id LIMIT ?`;
    // PostgreSQL: the picked ids are materialized once, so the update takes exactly those rows.
    const postgres = this.db.dialect === 'postgres';
    const sql = postgres
      ? `WITH picked AS MATERIALIZED (${due} FOR UPDATE SKIP LOCKED)
         UPDATE ${this.table} AS j SET ${take}
         FROM picked WHERE j.bus = ? AND j.job_id = picked.job_id
         RETURNING j.data, j.attempts_made, j.deliveries`
      : `UPDATE ${this.table} SET ${take}
         WHERE bus = ? AND job_id IN (${due}) RETURNING data, attempts_made, deliveries`;
    const params = postgres
      ? [this.bus, max, worker, leaseMs, lease, this.bus]
      : [worker, leaseMs, lease, this.bus, this.bus, max];
    const rows = await this.db.transaction((tx) =>
      tx.query<{ data: string; attempts_made: unknown; deliveries: unknown }>(sql, params),
    );
    return rows.map((row) => ({
      job: JSON.parse(row.data) as HandlerJob,
      attemptsMade: Number(row.attempts_made),
      deliveries: Number(row.deliveries),
      lease,
    }));
  }

  /**
   * For workers: a job is done (ran, or was dead-lettered); removes its row,
   * only while the claim `lease` holds it when given (a claim superseded
   * after its lease ran out removes nothing). Resolves to whether a row went.
   */
  async complete(jobId: string, lease?: string): Promise<boolean> {
    const params = lease === undefined ? [this.bus, jobId] : [this.bus, jobId, lease];
    return (
      (await this.db.execute(
        `DELETE FROM ${this.table} WHERE bus = ? AND job_id = ?${heldBy(lease)}`,
        params,
      )) > 0
    );
  }

  /**
   * For workers: runs `fn` in a transaction in which the claim `lease` holds
   * `jobId` (the row locked on PostgreSQL, the database on SQLite), so what
   * `fn` writes lands only for the claim still holding the job. Resolves to
   * false, without running `fn`, when the claim was superseded.
   */
  async whileHeld(jobId: string, lease: string, fn: (tx: SqlRunner) => Promise<void>): Promise<boolean> {
    const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        `SELECT job_id FROM ${this.table} WHERE bus = ? AND job_id = ? AND lease = ?${lock}`,
        [this.bus, jobId, lease],
      );
      if (rows.length === 0) return false;
      await fn(tx);
      return true;
    });
  }

  /**
   * For workers: a run failed and the job runs again `delayMs` from now on
   * the database's clock (as claims compare it): releases its lease and
   * stores `attemptsMade` and `job` (its failures appended), only while the
   * claim `lease` holds it when given. Resolves to whether the job was changed.
   */
  async retryAfter(
    jobId: string,
    delayMs: number,
    attemptsMade: number,
    job: HandlerJob,
    lease?: string,
  ): Promise<boolean> {
    const params = [Math.max(0, Math.round(delayMs)), attemptsMade, JSON.stringify(job), this.bus, jobId];
    const changed = await this.db.execute(
      `UPDATE ${this.table} SET run_at = ${this.db.now} + ?, attempts_made = ?, data = ?, locked_by = NULL, locked_until = NULL,
         lease = NULL, deliveries = 0
       WHERE bus = ? AND job_id = ?${heldBy(lease)}`,
      lease === undefined ? params : [...params, lease],
    );
    return changed > 0;
  }

  /**
   * For workers: extends the leases of `claims` to `leaseMs` from now
   * (database clock), `EXTEND_CHUNK` a statement. A job another claim
   * took since is left alone. Resolves to how many leases were extended.
   */
  async extend(claims: readonly SqlJobLease[], leaseMs: number): Promise<number> {
    let extended = 0;
    for (let start = 0; start < claims.length; start += EXTEND_CHUNK) {
      const chunk = claims.slice(start, start + EXTEND_CHUNK);
      // A list of pairs, not an OR per claim: SQLite refuses an expression deeper than 1000.
      extended += await this.db.execute(
        `UPDATE ${this.table} SET locked_until = ${this.db.now} + ?
         WHERE bus = ? AND (job_id, lease) IN (VALUES ${chunk.map(() => '(?, ?)').join(', ')})`,
        [leaseMs, this.bus, ...chunk.flatMap((c) => [c.jobId, c.lease])],
      );
    }
    return extended;
  }
}
