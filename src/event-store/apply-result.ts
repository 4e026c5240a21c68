import type { ObjectLiteral } from 'typeorm';
import { ApplyResultError } from './errors/apply-result.error.js';
import type { ReducerResult, RowKey } from './reducer-result.js';
import type { RowCache } from './row-cache.js';

/**
 * Applies one model's result to its rows through the batch's cache (the
 * writes go out at the next flush): `rm` deletes (a missing row is no error),
 * `set` replaces the whole row (columns left out become NULL), `ins` inserts
 * and fails on an existing row, `upd` merges into an existing row and fails on
 * a missing one, `sav` merges or inserts. A `null` in `upd`/`sav` sets the
 * column to NULL; an `undefined` property counts as left out (in `upd`/`sav`
 * the column keeps its value).
 */
export async function applyResult(
  read: (keys: readonly RowKey<ObjectLiteral>[]) => Promise<void>,
  cache: RowCache,
  result: ReducerResult<ObjectLiteral>,
  name: string,
): Promise<void> {
  const touched: RowKey<ObjectLiteral>[] = [
    ...(result.ins ?? []),
    ...(result.upd ?? []),
    ...(result.sav ?? []),
  ];
  await read(touched);
  for (const key of result.rm ?? []) cache.write(key, null);
  const empty = Object.fromEntries(
    cache.model.metadata.columns.filter((c) => !c.isPrimary).map((c) => [c.propertyName, null]),
  );
  for (const row of result.set ?? []) cache.write(row, { ...empty, ...defined(row) });
  for (const [i, row] of (result.ins ?? []).entries()) {
    if (cache.peek(row) !== null) {
      throw new ApplyResultError(
        name,
        `ins[${i}]`,
        `a row with key ${JSON.stringify(cache.where(row))} exists: ins only adds new rows (use set or sav to replace or change one)`,
      );
    }
    cache.write(row, defined(row));
  }
  for (const [i, row] of (result.upd ?? []).entries()) {
    const existing = cache.peek(row);
    if (existing === null) {
      throw new ApplyResultError(
        name,
        `upd[${i}]`,
        `no row with key ${JSON.stringify(cache.where(row))}: upd changes only existing rows (use sav to insert when missing)`,
      );
    }
    cache.write(row, { ...existing, ...defined(row) });
  }
  for (const row of result.sav ?? []) {
    const existing = cache.peek(row);
    cache.write(row, existing === null ? defined(row) : { ...existing, ...defined(row) });
  }
}

// A row without its undefined properties: spread over a cached row they would
// erase its values, and TypeORM writes them as DEFAULT.
function defined(row: ObjectLiteral): ObjectLiteral {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}
