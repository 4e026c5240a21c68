import { randomUUID } from 'node:crypto';
import type { HandlerJobQueue } from '../../handlers/handler-job-queue.js';
import { MalformedParkedWorkError } from '../../scheduling/errors/malformed-parked-work.error.js';
import type { ParkedWork } from '../../scheduling/parked-work.js';
import { compareRules, parseRuleId, ruleId } from '../../scheduling/rule-id.js';
import type { RuleKind, RuleTarget, SchedulingRule } from '../../scheduling/scheduling-rule.js';
import type { SchedulingRuleStore } from '../../scheduling/scheduling-rule-store.js';
import { SqlDroppedEntity } from './schema/dropped.entity.js';
import { SqlLockEntity } from './schema/lock.entity.js';
import { SqlParkedEntity } from './schema/parked.entity.js';
import { SqlRuleEntity } from './schema/rule.entity.js';
import type { SqlDb } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/** How long a release holds its handler's lock before another process may take it over. */
const RELEASE_LOCK_MS = 30_000;
/** Parked items read and enqueued per round of a release. */
const RELEASE_BATCH = 100;

/**
 * The `SchedulingRuleStore` port on the tables `commitbus_rules`,
 * `commitbus_parked` (in parking order by `id`), `commitbus_dropped` and
 * `commitbus_locks`. A release takes its handler's lock row (with an expiry
 * on the database clock, so a dead process's lock lapses), enqueues items
 * in batches and deletes each batch only after the job queue took it.
 */
export class SqlSchedulingRuleStore implements SchedulingRuleStore {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    readonly jobs: HandlerJobQueue,
  ) {}

  private get tables() {
    return {
      rules: sqlTableName(this.db, SqlRuleEntity),
      parked: sqlTableName(this.db, SqlParkedEntity),
      dropped: sqlTableName(this.db, SqlDroppedEntity),
      locks: sqlTableName(this.db, SqlLockEntity),
    };
  }

  async setRule(kind: RuleKind, target: RuleTarget, since: Date): Promise<boolean> {
    const added = await this.db.execute(
      `INSERT INTO ${this.tables.rules} (bus, rule_id, kind, target, since) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (bus, rule_id) DO NOTHING`,
      [this.bus, ruleId(kind, target), kind, JSON.stringify(target), since.getTime()],
    );
    return added > 0;
  }

  async removeRule(kind: RuleKind, target: RuleTarget): Promise<boolean> {
    const removed = await this.db.execute(`DELETE FROM ${this.tables.rules} WHERE bus = ? AND rule_id = ?`, [
      this.bus,
      ruleId(kind, target),
    ]);
    return removed > 0;
  }

  async listRules(): Promise<SchedulingRule[]> {
    const rows = await this.db.query<{ rule_id: string; since: unknown }>(
      `SELECT rule_id, since FROM ${this.tables.rules} WHERE bus = ?`,
      [this.bus],
    );
    const rules: SchedulingRule[] = [];
    for (const row of rows) {
      const parsed = parseRuleId(row.rule_id);
      if (parsed !== undefined) rules.push({ ...parsed, since: new Date(Number(row.since)) });
    }
    return rules.sort(compareRules);
  }

  async park(work: ParkedWork): Promise<void> {
    await this.db.execute(`INSERT INTO ${this.tables.parked} (bus, handler, data) VALUES (?, ?, ?)`, [
      this.bus,
      work.job.handler,
      JSON.stringify(work),
    ]);
  }

  async unpark(handler: string, releasable: (work: ParkedWork) => boolean): Promise<number> {
    const lock = `release:${handler}`;
    const token = randomUUID();
    if (!(await this.lock(lock, token))) return 0;
    try {
      let released = 0;
      for (;;) {
        const batch = await this.parkedBatch(handler);
        let count = 0;
        while (count < batch.length && releasable((batch[count] as { work: ParkedWork }).work)) count++;
        if (count === 0) return released;
        const taken = batch.slice(0, count);
        await this.jobs.enqueue(taken.map((item) => item.work.job));
        await this.db.execute(
          `DELETE FROM ${this.tables.parked} WHERE id IN (${taken.map(() => '?').join(', ')})`,
          taken.map((item) => item.id),
        );
        released += count;
        if (count < batch.length || batch.length < RELEASE_BATCH) return released;
      }
    } finally {
      await this.db.execute(`DELETE FROM ${this.tables.locks} WHERE bus = ? AND name = ? AND holder = ?`, [
        this.bus,
        lock,
        token,
      ]);
    }
  }

  async parkedHandlers(): Promise<string[]> {
    const rows = await this.db.query<{ handler: string }>(
      `SELECT DISTINCT handler FROM ${this.tables.parked} WHERE bus = ?`,
      [this.bus],
    );
    return rows.map((row) => row.handler);
  }

  async parkedCount(handler?: string): Promise<number> {
    const rows = await this.db.query<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM ${this.tables.parked} WHERE bus = ?${handler === undefined ? '' : ' AND handler = ?'}`,
      handler === undefined ? [this.bus] : [this.bus, handler],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async countDropped(handler: string): Promise<void> {
    await this.db.execute(
      `INSERT INTO ${this.tables.dropped} AS d (bus, handler, count) VALUES (?, ?, 1)
       ON CONFLICT (bus, handler) DO UPDATE SET count = d.count + 1`,
      [this.bus, handler],
    );
  }

  async droppedCount(handler?: string): Promise<number> {
    const rows = await this.db.query<{ n: unknown }>(
      `SELECT COALESCE(SUM(count), 0) AS n FROM ${this.tables.dropped} WHERE bus = ?${handler === undefined ? '' : ' AND handler = ?'}`,
      handler === undefined ? [this.bus] : [this.bus, handler],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Takes lock `name` for `token` if no one holds it or its holder's time ran out; resolves to whether it did. */
  private async lock(name: string, token: string): Promise<boolean> {
    const now = this.db.now;
    const rows = await this.db.query(
      `INSERT INTO ${this.tables.locks} AS l (bus, name, holder, until) VALUES (?, ?, ?, ${now} + ?)
       ON CONFLICT (bus, name) DO UPDATE SET holder = excluded.holder, until = excluded.until
       WHERE l.until <= ${now}
       RETURNING holder`,
      [this.bus, name, token, RELEASE_LOCK_MS],
    );
    return rows.length > 0;
  }

  /** The oldest parked items of `handler`, read. */
  private async parkedBatch(handler: string): Promise<{ id: number; work: ParkedWork }[]> {
    const rows = await this.db.query<{ id: unknown; data: string }>(
      `SELECT id, data FROM ${this.tables.parked} WHERE bus = ? AND handler = ? ORDER BY id LIMIT ?`,
      [this.bus, handler, RELEASE_BATCH],
    );
    return rows.map((row) => {
      try {
        return { id: Number(row.id), work: JSON.parse(row.data) as ParkedWork };
      } catch (error) {
        throw new MalformedParkedWorkError(`${this.tables.parked} row ${String(row.id)}`, { cause: error });
      }
    });
  }
}
