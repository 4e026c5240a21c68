import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import type { StoreTables } from './store-tables.js';
import { WRITER_ROW } from './store-tables.js';

/**
 * Who may handle events: one process at a time. On PostgreSQL a session
 * advisory lock held on the writer's own connection (released by the server
 * when the process or connection dies); on SQLite a lease on the state row,
 * renewed before each batch. Either way the handled version only moves by
 * compare-and-set, so even two writers could not apply an event twice.
 */
export interface WriterLock {
  /** Tries once to become (or stay) the writer. */
  acquire(): Promise<boolean>;
  /** Gives the role up; false when that could not be made sure of (the connection must not be reused). */
  release(): Promise<boolean>;
}

/** The lock for `tables`, held through `runner`'s connection. */
export function writerLock(
  tables: StoreTables,
  runner: QueryRunner,
  owner: string,
  leaseMs: number,
): WriterLock {
  return tables.dialect === 'postgres'
    ? new AdvisoryLock(tables, runner)
    : new LeaseLock(tables, runner, owner, leaseMs);
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

class LeaseLock implements WriterLock {
  constructor(
    private readonly tables: StoreTables,
    private readonly runner: QueryRunner,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  async acquire(): Promise<boolean> {
    const now = Date.now();
    const rows = await this.tables.rows(
      this.runner.manager,
      `UPDATE ${this.tables.state} SET writer = ?, lease_until = ? WHERE id = ? AND (writer IS NULL OR writer = ? OR lease_until < ?) RETURNING writer`,
      [this.owner, now + this.leaseMs, WRITER_ROW, this.owner, now],
    );
    return rows.length === 1;
  }

  async release(): Promise<boolean> {
    return this.runner
      .query(
        `UPDATE ${this.tables.state} SET writer = NULL, lease_until = NULL WHERE id = ? AND writer = ?`,
        [WRITER_ROW, this.owner],
      )
      .then(
        () => true,
        () => false,
      );
  }
}
