import type { DeadLetterKind, DeadLetterReason } from '../dead-letters/dead-letter.js';
import type { DeadLetterFilter, DeadLetterVersion } from '../dead-letters/dead-letter-store.js';
import { DashboardRequestError } from './errors/dashboard-request.error.js';

/** A request's query or JSON body, field by field. */
export type Fields = Record<string, unknown>;

/** The filter fields of the dead-letter browser: the query names, each a {@link DeadLetterFilter} field. */
export const BROWSER_FILTER_FIELDS = [
  ['handler', 'handler'],
  ['handlingKey', 'handlingKey'],
  ['eventId', 'eventId'],
  ['kind', 'kind'],
  ['reason', 'reason'],
  ['error', 'errorIncludes'],
] as const;

/** A browser filter: the {@link DeadLetterFilter} fields an operator fills in (no time bounds, order or limit). */
export type BrowserFilter = Pick<
  DeadLetterFilter,
  'handler' | 'handlingKey' | 'eventId' | 'kind' | 'reason' | 'errorIncludes'
>;

/** The filter `source` names (`?handler=&error=...`); empty fields are left out. */
export function browserFilterOf(source: Fields): BrowserFilter {
  const picked: { -readonly [K in keyof BrowserFilter]: BrowserFilter[K] } = {};
  for (const [name, field] of BROWSER_FILTER_FIELDS) {
    const value = source[name];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') throw new DashboardRequestError(`${name} must be text`);
    if (field === 'kind') picked.kind = value as DeadLetterKind;
    else if (field === 'reason') picked.reason = value as DeadLetterReason;
    else picked[field] = value;
  }
  return picked;
}

/** The query string of `filter` (`handler=...&error=...`), for links that keep it. */
export function browserFilterQuery(filter: BrowserFilter): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, field] of BROWSER_FILTER_FIELDS) {
    const value = filter[field];
    if (value !== undefined) query.set(name, value);
  }
  return query;
}

/** A page cursor as text: `<deadAt epoch ms>,<id>` (an id may hold commas; the time never does). */
export function formatCursor(letter: DeadLetterVersion): string {
  return `${letter.deadAt.getTime()},${letter.id}`;
}

/** Reads a cursor {@link formatCursor} wrote; `undefined` when `text` is absent or empty. */
export function parseCursor(text: unknown): DeadLetterVersion | undefined {
  if (text === undefined || text === '') return undefined;
  const match = typeof text === 'string' ? /^(\d{1,15}),(.+)$/s.exec(text) : null;
  if (match === null) {
    throw new DashboardRequestError(
      `after must be a cursor <deadAt epoch ms>,<id> (a page's "next"), got ${String(text)}`,
    );
  }
  return { deadAt: new Date(Number(match[1])), id: match[2] as string };
}

/** A whole number from 1 to `max` from `raw` (decimal digits only: not `1e3`, `0x10`), or `fallback` when it is absent. */
export function limitOf(raw: unknown, fallback: number, max: number): number {
  const digits = typeof raw === 'string' && /^\d{1,16}$/.test(raw);
  const limit = raw === undefined || raw === '' ? fallback : digits ? Number(raw) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new DashboardRequestError(`limit must be a whole number from 1 to ${max}, got ${String(raw)}`);
  }
  return limit;
}
