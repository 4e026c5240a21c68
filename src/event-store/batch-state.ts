import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager, ObjectLiteral, QueryRunner } from 'typeorm';
import { InternalError } from '../support/errors/internal.error.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { RowKey } from './reducer-result.js';
import type { ResolvedModel } from './resolved-model.js';
import { RowCache } from './row-cache.js';
import type { StoreEvent } from './store-event.js';
import type { StoreDialect } from './store-tables.js';

/** How a batch keeps rows. */
export interface BatchStateOptions {
  /** The database, for what each column type gives back. */
  readonly dialect: StoreDialect;
  /** Models whose written rows are never kept (their tables change behind the store's back). */
  readonly uncached: ReadonlySet<string>;
}

/**
 * True while a `transact` callback runs (false again inside its `dispatch`):
 * a statement that writes is refused then.
 */
export const writesRefused = new AsyncLocalStorage<boolean>();

// Set while the batch state itself queries, so its own statements are not intercepted.
const own = new AsyncLocalStorage<true>();
const READ_ONLY = /^\s*(select|savepoint|release|rollback|start transaction|begin|commit)\b/i;

/** Runs `fn`'s statements as the writer's own: no batch flushes its waiting writes for them. */
export function ownStatement<T>(fn: () => Promise<T>): Promise<T> {
  return own.run(true, fn);
}

/**
 * The writer's view of the models' rows during one transaction: a
 * {@link RowCache} per model. Before any other statement reaches the
 * database the waiting writes are flushed, so every read (a reducer's own
 * query, a deriver's, the outbox's) sees the state as of the last applied
 * event; a statement that may write a model's table makes its cache forget.
 */
export class BatchState {
  private readonly caches = new Map<ResolvedModel, RowCache>();
  private flushing: Promise<void> | undefined;
  private restore: (() => void) | undefined;

  constructor(
    private readonly runner: QueryRunner,
    models: readonly ResolvedModel[],
    private readonly options: BatchStateOptions,
  ) {
    this.fill(models);
  }

  // One cache per table: models sharing an entity see each other's writes.
  private fill(models: readonly ResolvedModel[]): void {
    const byTable = new Map<unknown, RowCache>();
    for (const model of models) {
      const cache =
        byTable.get(model.metadata.target) ??
        new RowCache(model, this.options.dialect, !this.options.uncached.has(model.name));
      byTable.set(model.metadata.target, cache);
      this.caches.set(model, cache);
    }
  }

  /** The cache of `model`. */
  cache(model: ResolvedModel): RowCache {
    const cache = this.caches.get(model);
    if (cache === undefined) throw new InternalError(`model "${model.name}" is not part of this batch`);
    return cache;
  }

  /** Sends every waiting write. */
  async flush(manager: EntityManager = this.runner.manager): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (![...this.caches.values()].some((c) => c.dirty)) return;
    this.flushing = own.run(true, async () => {
      for (const cache of new Set(this.caches.values())) await cache.flush(manager);
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  /**
   * The row of `key` as of the last applied event, `null` when absent. A
   * flush forgets the rows it writes without every column, so a row known
   * a moment ago may be gone from the cache by the time a reader looks (a
   * parallel reducer's query flushed): wait for a flush in flight, and read
   * again until the cache knows the row.
   */
  async row(
    cache: RowCache,
    manager: EntityManager,
    key: RowKey<ObjectLiteral>,
  ): Promise<ObjectLiteral | null> {
    for (;;) {
      await this.ensure(cache, manager, [key]);
      if (cache.knows(key)) return cache.peek(key);
    }
  }

  /** Makes `cache` know `keys`: flushes when a written row it did not keep is among them, then reads the unknown ones. */
  async ensure(
    cache: RowCache,
    manager: EntityManager,
    keys: readonly RowKey<ObjectLiteral>[],
  ): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (cache.needsFlush(keys)) await this.flush(manager);
    await own.run(true, () => cache.load(manager, keys));
  }

  /** Reads, for each model with `prefetch`, the rows `events` will read, one query per model. */
  async prefetch(events: readonly StoreEvent[]): Promise<void> {
    for (const [model, cache] of this.caches) {
      const keysOf = model.model.prefetch;
      if (keysOf === undefined) continue;
      const keys: RowKey<ObjectLiteral>[] = [];
      for (const event of events) {
        const found = keysOf(event);
        if (found === undefined || found === null) continue;
        if (Array.isArray(found)) keys.push(...found);
        else keys.push(found as RowKey<ObjectLiteral>);
      }
      await this.ensure(cache, this.runner.manager, keys);
    }
  }

  /** Forgets every cached row and drops waiting writes (after a rollback). */
  reset(): void {
    this.fill([...this.caches.keys()]);
  }

  /** Routes every statement of the runner through the batch until {@link detach}. */
  attach(): void {
    if (this.restore !== undefined) return;
    const runner = this.runner;
    const original = runner.query;
    runner.query = (async (...args: Parameters<QueryRunner['query']>) => {
      const [query] = args;
      if (own.getStore() !== true) {
        if (writesRefused.getStore() === true && !READ_ONLY.test(query)) {
          throw new EventStoreUsageError(
            'a transact callback wrote to the database: it may read and dispatch sub-events (ctx.dispatch), and the writes belong in reducers or derivers, so that a replay rebuilds them',
          );
        }
        await this.flush();
        if (!READ_ONLY.test(query)) {
          for (const cache of this.caches.values()) {
            if (query.includes(cache.model.metadata.tableName)) cache.clear();
          }
        }
      }
      return original.apply(runner, args);
    }) as QueryRunner['query'];
    this.restore = () => {
      runner.query = original;
    };
  }

  /** Stops routing the runner's statements. */
  detach(): void {
    this.restore?.();
    this.restore = undefined;
  }
}
