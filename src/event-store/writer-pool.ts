import type { DataSource } from 'typeorm';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';

/**
 * Refuses a DataSource whose pool has fewer than two connections: the writer
 * keeps one for itself (its lock lives on it), so with a pool of one every
 * other query of the store (dispatch, polls, operator actions) would wait
 * for ever. SQLite has one shared connection and no pool: not concerned.
 */
export function checkWriterPool(dataSource: DataSource): void {
  if (dataSource.options.type !== 'postgres') return;
  const { extra, poolSize } = dataSource.options as { extra?: { max?: unknown }; poolSize?: unknown };
  const max = extra?.max ?? poolSize;
  if (typeof max === 'number' && max < 2) {
    throw new EventStoreUsageError(
      `store.start(): the writer keeps one connection of the DataSource's pool, and the pool has ${max}, so every other query would wait for ever: give it at least 2 (extra.max or poolSize)`,
    );
  }
}
