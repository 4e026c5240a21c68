import { plainToInstance } from 'class-transformer';
import type { Event } from './event.js';

type Path = (string | number)[];

/** A Map or a Set that would not arrive as it was sent: where, and why. */
export interface ContainerChange {
  readonly path: Path;
  readonly problem: string;
}

/**
 * The first `Map` or `Set` in `event` that would not come back the same from
 * its plain form (`plain`, as `instanceToPlain` gave it) through JSON and
 * class-transformer's `plainToInstance` into the event's class, as a worker
 * decodes it; `undefined` when each comes back with the same class, keys,
 * order and values. class-transformer restores them only where type metadata
 * says so: a `Set` on a property declared `Set` (emitted `design:type`) with
 * `@Type`, a `Map` on a property with `@Type(() => Map)` (or declared `Map`
 * with `@Type` of its values); a Map's keys arrive as strings, and a Map or
 * Set nested in an untyped object or an array arrives as a plain object or an
 * array. Runs only for events that hold a Map or a Set.
 */
export function containerChangeIn(event: Event, plain: Record<string, unknown>): ContainerChange | undefined {
  const cls = event.constructor as new () => object;
  const decoded: unknown = plainToInstance(cls, JSON.parse(JSON.stringify(plain)));
  return changeWithin(event, decoded, []);
}

function changeWithin(sent: unknown, got: unknown, path: Path): ContainerChange | undefined {
  if (sent instanceof Map || sent instanceof Set) {
    return sameValue(sent, got) ? undefined : { path, problem: containerProblem(sent) };
  }
  if (!isWalkable(sent)) return undefined;
  const other = (typeof got === 'object' && got !== null ? got : {}) as Record<string | number, unknown>;
  if (Array.isArray(sent)) {
    for (let i = 0; i < sent.length; i++) {
      const found = changeWithin(sent[i], other[i], [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const record = sent as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const found = changeWithin(record[key], other[key], [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Objects and arrays whose own fields class-transformer walks (not Dates, binary data or `toJSON` values). */
function isWalkable(value: unknown): value is object {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Date) &&
    !ArrayBuffer.isView(value) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** Whether `got` is `sent` as a worker would see it: same classes, keys, order and values. */
function sameValue(sent: unknown, got: unknown): boolean {
  if (typeof sent !== 'object' || sent === null) return sent === got || (sent === 0 && got === 0);
  if (typeof got !== 'object' || got === null) return false;
  if (Object.getPrototypeOf(sent) !== Object.getPrototypeOf(got)) return false;
  if (sent instanceof Date) return sent.getTime() === (got as Date).getTime();
  if (!isWalkable(sent)) return true;
  if (sent instanceof Map || sent instanceof Set)
    return sameEntries(sent, got as Map<unknown, unknown> | Set<unknown>);
  const a = sent as Record<string, unknown>;
  const b = got as Record<string, unknown>;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]));
}

function sameEntries(
  sent: Map<unknown, unknown> | Set<unknown>,
  got: Map<unknown, unknown> | Set<unknown>,
): boolean {
  if (sent.size !== got.size) return false;
  const theirs = [...got.entries()];
  let i = 0;
  for (const [key, value] of sent.entries()) {
    const [otherKey, otherValue] = theirs[i++] as [unknown, unknown];
    if (!sameValue(key, otherKey) || !sameValue(value, otherValue)) return false;
  }
  return true;
}

function containerProblem(value: Map<unknown, unknown> | Set<unknown>): string {
  return value instanceof Map
    ? 'is a Map that would not arrive as it was sent (JSON has no form for a Map: class-transformer restores one only on a property with @Type(() => Map) holding strings, numbers, booleans or nulls under string keys, or declared Map with @Type(() => TheValueClass); elsewhere it arrives as a plain object, its keys as strings): declare it so, or send Object.fromEntries(map), or an array of [key, value] pairs'
    : 'is a Set that would not arrive as it was sent (JSON has no form for a Set: class-transformer restores one only on a property declared Set, with emitDecoratorMetadata, and @Type(() => TheItemClass) or @Type(() => Set) for strings, numbers, booleans or nulls; elsewhere it arrives as an array): declare it so, or send an array, [...set]';
}
