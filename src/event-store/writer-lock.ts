import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { type SqliteHostLock, sqliteHostLock } from './sqlite-host-lock.js';
import type { StoreTables } from './store-tables.js';
import { WRITER_ROW } from './store-tables.js';

/**
 * Who may handle events: one process at a time. On PostgreSQL a session
 * advisory lock held on the writer's own connection (released by the server
 * when the process or connection dies); on SQLite a lease on the state row
 * together with an OS lock on a file beside the database
 * ({@link SqliteHostLock}, freed by the kernel when the process dies), so a
 * dead writer's lease is taken over at once and a frozen one's once it ran
 * out. Either way the handled version only moves by
 * compare-and-set, so even two writers could not apply an event twice.
 */
export interface WriterLock {
  /** Tries once to become (or stay) the writer. */
  acquire(): Promise<boolean>;
  /** Gives the role up; false when that could not be made sure of (the connection must not be reused). */
  release(): Promise<boolean>;
}

/**
 * The lock for `tables`, held through `runner`'s connection; on SQLite on a
 * file, with the OS lock that tells a dead writer from a live one at once.
 */
export async function writerLock(
  tables: StoreTables,
  runner: QueryRunner,
  owner: string,
  leaseMs: number,
): Promise<WriterLock> {
  return tables.dialect === 'postgres'
    ? new AdvisoryLock(tables, runner)
    : new LeaseLock(tables, runner, owner, leaseMs, await sqliteHostLock(runner));
}

class AdvisoryLock implements WriterLock {
  private held = false;
  private readonly key: string;

  constructor(
    tables: StoreTables,
    private readonly runner: QueryRunner,
  ) {
    // A signed 64-bit key from the events table's path, so two stores in two schemas do not share a writer.
    this.key = createHash('sha256')
      .update(`commitbus-event-store:${tables.path}`)
      .digest()
      .readBigInt64BE(0)
      .toString();
  }

  async acquire(): Promise<boolean> {
    if (this.held) return true;
    const [row] = (await this.runner.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
      this.key,
    ])) as { locked: boolean }[];
    this.held = row?.locked === true;
    return this.held;
  }

  async release(): Promise<boolean> {
    if (!this.held) return true;
    this.held = false;
    try {
      await this.runner.query('SELECT pg_advisory_unlock($1::bigint)', [this.key]);
      return true;
    } catch {
      return false;
    }
  }
}

// A lease holder that took the role without the host lock (its holder was frozen) marks its name so.
const LEASE_ONLY = ':lease-only';

class LeaseLock implements WriterLock {
  /** Until when a holder of the host lock need not renew its lease (Date.now() ms). */
  private renewAt = 0;

  constructor(
    private readonly tables: StoreTables,
    private readonly runner: QueryRunner,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly host: SqliteHostLock | undefined,
  ) {}

  async acquire(): Promise<boolean> {
    const now = Date.now();
    const sole = this.host?.tryHold() ?? false;
    // Holding the host lock, no other live process can hold the role: renewing the lease on every
    // turn would only add a commit per batch.
    if (sole && now < this.renewAt) return true;
    const { where, params } = this.takeable(sole, now);
    const rows = await this.tables.rows(
      this.runner.manager,
      `UPDATE ${this.tables.state} SET writer = ?, lease_until = ? WHERE id = ? AND ${where} RETURNING writer`,
      [sole ? this.owner : `${this.owner}${LEASE_ONLY}`, now + this.leaseMs, WRITER_ROW, ...params],
    );
    const held = rows.length === 1;
    this.renewAt = held && sole ? now + Math.floor(this.leaseMs / 3) : 0;
    // The host lock goes with the role: a stand-by holding it would keep the writer from taking it.
    if (!held) this.host?.release();
    return held;
  }

  /**
   * When this process may take the lease row. With the host lock, a lease
   * left by a process that held it is void (that process is dead); only a
   * live process that took the role while the host lock's holder was frozen
   * keeps it, until its lease runs out. Without the host lock (another
   * process holds it), only an expired lease; without a lock file at all
   * (`:memory:`), an empty or expired one.
   */
  private takeable(sole: boolean, now: number): { where: string; params: unknown[] } {
    const mine = 'writer IN (?, ?) OR lease_until < ?';
    const params = [this.owner, `${this.owner}${LEASE_ONLY}`, now];
    if (sole) {
      return {
        where: `(writer IS NULL OR ${mine} OR writer NOT LIKE ?)`,
        params: [...params, `%${LEASE_ONLY}`],
      };
    }
    return { where: this.host === undefined ? `(writer IS NULL OR ${mine})` : `(${mine})`, params };
  }

  async release(): Promise<boolean> {
    this.renewAt = 0;
    const released = await this.runner
      .query(
        `UPDATE ${this.tables.state} SET writer = NULL, lease_until = NULL WHERE id = ? AND writer IN (?, ?)`,
        [WRITER_ROW, this.owner, `${this.owner}${LEASE_ONLY}`],
      )
      .then(
        () => true,
        () => false,
      );
    this.host?.release();
    return released;
  }
}
