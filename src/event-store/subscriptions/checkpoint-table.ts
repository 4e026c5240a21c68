import type { DataSource, EntityManager } from 'typeorm';
import { withTransactionGate } from '../../uow/transaction-gate.js';
import { EventStoreNotConfiguredError } from '../errors/event-store-not-configured.error.js';
import { EventStoreUsageError } from '../errors/event-store-usage.error.js';
import { SubscriptionRowEntity } from '../schema/subscription-row.entity.js';
import { type StoreTables, WRITER_ROW } from '../store-tables.js';
import type { SubscriptionFailure, SubscriptionStatus } from './subscription-status.js';

/** A checkpoint row as read, its JSON parsed. */
export interface Checkpoint {
  readonly name: string;
  readonly position: number;
  readonly status: 'active' | 'halted';
  readonly attempts: number;
  readonly error?: SubscriptionFailure;
  readonly owner: string | null;
  readonly leaseUntil: number | null;
  readonly updatedAt: number;
}

/** What a consumer reads each turn. */
export interface Turn {
  readonly handled: number;
  readonly position: number;
  readonly owner: string | null;
  readonly status: string;
}

interface RawCheckpoint {
  name: string;
  position: string | number;
  status: string;
  attempts: string | number;
  error: string | null;
  owner: string | null;
  lease_until: string | number | null;
  updated_at: string | number;
}

/**
 * The SQL on `commitbus_es_subscriptions`. Every write that a consumer makes
 * names its owner, so a process whose lease another took writes nothing;
 * the checkpoint moves only by compare-and-set. Each call runs between the
 * SQLite writer's transactions (the transaction gate).
 */
export class CheckpointTable {
  private readonly table: string;

  constructor(private readonly tables: StoreTables) {
    const dataSource = tables.dataSource;
    if (!dataSource.hasMetadata(SubscriptionRowEntity)) {
      throw new EventStoreNotConfiguredError(
        'its DataSource has no commitbus_es_subscriptions entity (durable subscriptions keep their checkpoints there)',
      );
    }
    this.table = dataSource
      .getMetadata(SubscriptionRowEntity)
      .tablePath.split('.')
      .map((part) => dataSource.driver.escape(part))
      .join('.');
  }

  /** Creates the row at `position` unless it exists; returns the row. */
  async ensure(name: string, position: () => Promise<number>): Promise<Checkpoint> {
    const found = await this.get(name);
    if (found !== undefined) return found;
    const at = await position();
    await this.run(
      `INSERT INTO ${this.table} (name, position, status, attempts, updated_at) VALUES (${this.p(1)}, ${this.p(2)}, 'active', 0, ${this.p(3)}) ON CONFLICT (name) DO NOTHING`,
      [name, at, Date.now()],
    );
    return (await this.get(name)) as Checkpoint;
  }

  /** The row of `name`, if any. */
  async get(name: string): Promise<Checkpoint | undefined> {
    const [row] = await this.run<RawCheckpoint>(`SELECT * FROM ${this.table} WHERE name = ${this.p(1)}`, [
      name,
    ]);
    return row === undefined ? undefined : toCheckpoint(row);
  }

  /**
   * The store's handled version and the row's position, owner and status, in
   * one query (a consumer's turn); undefined when the row is gone.
   */
  async turn(name: string): Promise<Turn | undefined> {
    const [row] = await this.run<{
      handled: string | number | null;
      position: string | number;
      owner: string | null;
      status: string;
    }>(
      // The state row is missing until the store's first dispatch or start: handled 0 then.
      `SELECT s.handled, c.position, c.owner, c.status FROM ${this.table} c LEFT JOIN ${this.tables.state} s ON s.id = ${this.p(1)} WHERE c.name = ${this.p(2)}`,
      [WRITER_ROW, name],
    );
    if (row === undefined) return undefined;
    return {
      handled: Number(row.handled ?? 0),
      position: Number(row.position),
      owner: row.owner,
      status: row.status,
    };
  }

  /** Every row, by name. */
  async all(): Promise<Checkpoint[]> {
    return (await this.run<RawCheckpoint>(`SELECT * FROM ${this.table} ORDER BY name`)).map(toCheckpoint);
  }

  /** Takes (or keeps) the lease of an active row; the row when `owner` holds it now. */
  async acquire(name: string, owner: string, leaseMs: number): Promise<Checkpoint | undefined> {
    const now = Date.now();
    const [row] = await this.run<RawCheckpoint>(
      `UPDATE ${this.table} SET owner = ${this.p(1)}, lease_until = ${this.p(2)} WHERE name = ${this.p(3)} AND status = 'active' AND (owner IS NULL OR owner = ${this.p(4)} OR lease_until < ${this.p(5)}) RETURNING *`,
      [owner, now + leaseMs, name, owner, now],
    );
    return row === undefined ? undefined : toCheckpoint(row);
  }

  /** Extends `owner`'s lease; false when it holds it no more. */
  async renew(name: string, owner: string, leaseMs: number): Promise<boolean> {
    const rows = await this.run(
      `UPDATE ${this.table} SET lease_until = ${this.p(1)} WHERE name = ${this.p(2)} AND owner = ${this.p(3)} AND status = 'active' RETURNING name`,
      [Date.now() + leaseMs, name, owner],
    );
    return rows.length === 1;
  }

  /** Gives `owner`'s lease up. */
  async release(name: string, owner: string): Promise<void> {
    await this.run(
      `UPDATE ${this.table} SET owner = NULL, lease_until = NULL WHERE name = ${this.p(1)} AND owner = ${this.p(2)}`,
      [name, owner],
    );
  }

  /** Moves the checkpoint from `from` to `to` (clearing failures); false when `owner` lost the row or it moved. */
  async advance(name: string, owner: string, from: number, to: number, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    const rows = await this.run(
      `UPDATE ${this.table} SET position = ${this.p(1)}, attempts = 0, error = NULL, lease_until = ${this.p(2)}, updated_at = ${this.p(3)} WHERE name = ${this.p(4)} AND owner = ${this.p(5)} AND position = ${this.p(6)} AND status = 'active' RETURNING name`,
      [to, now + leaseMs, now, name, owner, from],
    );
    return rows.length === 1;
  }

  /** Records a failure at `position + 1`; with `halt`, halts the row and lets its lease go. False when `owner` lost it. */
  async fail(name: string, owner: string, position: number, failure: SubscriptionFailure, halt: boolean) {
    const rows = await this.run(
      `UPDATE ${this.table} SET attempts = ${this.p(1)}, error = ${this.p(2)}, status = ${this.p(3)}, updated_at = ${this.p(4)}${halt ? ', owner = NULL, lease_until = NULL' : ''} WHERE name = ${this.p(5)} AND owner = ${this.p(6)} AND position = ${this.p(7)} AND status = 'active' RETURNING name`,
      [
        failure.attempts,
        JSON.stringify(failure),
        halt ? 'halted' : 'active',
        Date.now(),
        name,
        owner,
        position,
      ],
    );
    return rows.length === 1;
  }

  /** Makes the row active again, with `position` when given and no failures; false when there is no row. */
  async restart(name: string, position?: number): Promise<boolean> {
    // Parameters in the order they appear (SQLite's are positional).
    const params: unknown[] = position === undefined ? [Date.now(), name] : [Date.now(), position, name];
    const set = position === undefined ? '' : `, position = ${this.p(2)}`;
    const rows = await this.run(
      `UPDATE ${this.table} SET status = 'active', attempts = 0, error = NULL, updated_at = ${this.p(1)}${set} WHERE name = ${this.p(params.length)} RETURNING name`,
      params,
    );
    return rows.length === 1;
  }

  /** Deletes the row unless a live lease holds it; throws `EventStoreUsageError` then. False when there was none. */
  async remove(name: string): Promise<boolean> {
    const rows = await this.run<{ owner: string | null }>(
      `DELETE FROM ${this.table} WHERE name = ${this.p(1)} AND (owner IS NULL OR lease_until < ${this.p(2)}) RETURNING owner`,
      [name, Date.now()],
    );
    if (rows.length === 1) return true;
    const held = await this.get(name);
    if (held === undefined) return false;
    throw new EventStoreUsageError(
      `subscription "${name}" is running in ${held.owner ?? 'a process'}: stop it there (subscription.stop()) before removing it`,
    );
  }

  private p(n: number): string {
    return this.tables.p(n);
  }

  private run<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const dataSource: DataSource = this.tables.dataSource;
    return withTransactionGate(dataSource, () =>
      this.tables.rows<R>(dataSource.manager as EntityManager, sql, params),
    ).catch((error: unknown) => {
      throw EventStoreNotConfiguredError.ifTablesMissing(error);
    });
  }
}

/** The status of a checkpoint row, given the store's handled version. */
export function toStatus(row: Checkpoint, handled: number, now = Date.now()): SubscriptionStatus {
  const leased = row.owner !== null && row.leaseUntil !== null && row.leaseUntil >= now;
  return {
    name: row.name,
    position: row.position,
    lag: Math.max(0, handled - row.position),
    status: row.status,
    attempts: row.attempts,
    ...(row.error === undefined ? {} : { error: row.error }),
    ...(leased && row.owner !== null ? { owner: row.owner } : {}),
    updatedAt: row.updatedAt,
  };
}

function toCheckpoint(r: RawCheckpoint): Checkpoint {
  return {
    name: r.name,
    position: Number(r.position),
    status: r.status === 'halted' ? 'halted' : 'active',
    attempts: Number(r.attempts),
    ...(r.error === null ? {} : { error: JSON.parse(r.error) as SubscriptionFailure }),
    owner: r.owner,
    leaseUntil: r.lease_until === null ? null : Number(r.lease_until),
    updatedAt: Number(r.updated_at),
  };
}
