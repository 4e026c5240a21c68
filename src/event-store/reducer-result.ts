import type { StoreEventInput } from './store-event.js';

/** A row's primary key: its value (one primary column) or an object of its primary columns. */
export type RowKey<T> = string | number | Partial<T>;

/**
 * What a reducer returns for one event: how its model's table changes, plus
 * sub-events and any other keys (opaque, kept in history). Return `undefined`
 * when the event changes nothing.
 */
export interface ReducerResult<T> {
  /** Rows to replace whole (inserted when missing). */
  readonly set?: readonly T[];
  /** Rows to insert; applying fails when one exists. */
  readonly ins?: readonly T[];
  /** Changes to existing rows (primary columns plus changed columns); applying fails when one is missing. */
  readonly upd?: readonly Partial<T>[];
  /** Changes to rows, inserted when missing (then carrying every required column). */
  readonly sav?: readonly Partial<T>[];
  /** Keys of rows to delete; a missing row is no error. */
  readonly rm?: readonly RowKey<T>[];
  /** Sub-events, handled depth-first after this event's changes. */
  readonly events?: readonly StoreEventInput[];
  /**
   * Rejects the event back to its dispatcher with this reason (a business
   * refusal, not a failure): nothing of the event is written, its history row
   * is `rejected`, its `dispatch` rejects with `EventRejectedError`, and the
   * store goes on with the next event. In a sub-event, it rejects the whole event.
   */
  readonly esFail?: string;
  /** Opaque keys: kept in history, ignored by the apply step. */
  readonly [key: string]: unknown;
}

/** The keys the apply step writes, in the order it writes them. */
export const APPLY_KEYS = ['rm', 'set', 'ins', 'upd', 'sav'] as const;

/** What a result is checked against: the model's primary columns and every property a row may carry. */
export interface ResultShape {
  readonly primary: readonly string[];
  readonly fields: ReadonlySet<string>;
}

/**
 * What is wrong with a reducer's return value, or `undefined` when it is a
 * result (or nothing). Every row to write must carry the model's primary
 * columns, and nothing that is not a column (a misspelt column would
 * otherwise be left out silently).
 */
export function resultProblem(value: unknown, { primary, fields }: ResultShape): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) return `it returned ${describe(value)}, not a result object or undefined`;
  for (const key of ['set', 'ins', 'upd', 'sav'] as const) {
    const rows = value[key];
    if (rows === undefined) continue;
    if (!Array.isArray(rows)) return `"${key}" is ${describe(rows)}, not an array of rows`;
    for (const [i, row] of rows.entries()) {
      if (!isRowObject(row)) return `"${key}[${i}]" is ${describe(row)}, not a row object`;
      const missing = primary.find((column) => row[column] === undefined || row[column] === null);
      if (missing !== undefined) return `"${key}[${i}]" has no value for its primary column "${missing}"`;
      const unknown = Object.keys(row).find((property) => !fields.has(property));
      if (unknown !== undefined) {
        return `"${key}[${i}]" has "${unknown}", which is not a column of the model's entity (its columns: ${[...fields].join(', ')})`;
      }
    }
  }
  const rm = value.rm;
  if (rm !== undefined) {
    if (!Array.isArray(rm)) return `"rm" is ${describe(rm)}, not an array of keys`;
    for (const [i, key] of rm.entries()) {
      if (typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key))) {
        if (primary.length !== 1)
          return `"rm[${i}]" is a single value but the model has ${primary.length} primary columns: give an object`;
        continue;
      }
      if (!isPlainObject(key)) return `"rm[${i}]" is ${describe(key)}, not a key`;
      const missing = primary.find((column) => key[column] === undefined || key[column] === null);
      if (missing !== undefined) return `"rm[${i}]" has no value for its primary column "${missing}"`;
    }
  }
  const esFail = value.esFail;
  if (esFail !== undefined && (typeof esFail !== 'string' || esFail.length === 0))
    return `"esFail" is ${typeof esFail === 'string' ? 'empty' : describe(esFail)}, not a reason (a non-empty string)`;
  const events = value.events;
  if (events !== undefined) {
    if (!Array.isArray(events)) return `"events" is ${describe(events)}, not an array of { type, data }`;
    for (const [i, event] of events.entries()) {
      if (!isPlainObject(event) || typeof event.type !== 'string' || event.type.length === 0) {
        return `"events[${i}]" is not a { type, data } sub-event`;
      }
    }
  }
  return undefined;
}

function isRowObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an object literal (or made with `Object.create(null)`). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'an unknown class'}`;
  return `a ${typeof value}`;
}
