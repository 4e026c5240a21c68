import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';
import { NestedTransactionError } from './errors/nested-transaction.error.js';

const gates = new WeakMap<DataSource, Promise<void>>();
// The gate this async context holds, while it holds it: waiting for it again would wait forever.
const holding = new AsyncLocalStorage<{ readonly dataSource: DataSource; held: boolean }>();
// TypeORM's SQLite drivers: each DataSource holds one connection.
const SINGLE_CONNECTION_DRIVERS: ReadonlySet<string> = new Set([
  'better-sqlite3',
  'sqljs',
  'capacitor',
  'cordova',
  'expo',
  'nativescript',
  'react-native',
]);

/** Whether the DataSource has one connection that every transaction shares (SQLite drivers). */
export function hasSingleConnection(dataSource: DataSource): boolean {
  return SINGLE_CONNECTION_DRIVERS.has(dataSource.options.type);
}

/**
 * Whether this async context holds `dataSource`'s gate now (it runs inside
 * {@link withTransactionGate}): its statements run on the one connection the
 * holder owns, in the holder's transaction if it opened one.
 */
export function holdsTransactionGate(dataSource: DataSource): boolean {
  const held = holding.getStore();
  return held?.held === true && held.dataSource === dataSource;
}

/**
 * Runs `fn` alone among gated work on `dataSource` when it has a single
 * connection: on SQLite two transactions would otherwise interleave on the
 * same connection (and one would see the other's uncommitted rows).
 * Elsewhere `fn` runs at once. Called again from inside `fn` (which would
 * wait for itself), it throws {@link NestedTransactionError}.
 */
export async function withTransactionGate<T>(dataSource: DataSource, fn: () => Promise<T>): Promise<T> {
  if (!hasSingleConnection(dataSource)) return fn();
  const held = holding.getStore();
  if (held?.held === true && held.dataSource === dataSource) throw new NestedTransactionError();
  const previous = gates.get(dataSource) ?? Promise.resolve();
  let release: () => void = () => {};
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  gates.set(dataSource, tail);
  await previous;
  const token = { dataSource, held: true };
  try {
    return await holding.run(token, fn);
  } finally {
    token.held = false;
    release();
    if (gates.get(dataSource) === tail) gates.delete(dataSource);
  }
}
