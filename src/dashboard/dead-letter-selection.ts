import { createHash } from 'node:crypto';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { DeadLetterFilter } from '../dead-letters/dead-letter-store.js';
import type { DeadLetters } from '../dead-letters/dead-letters.js';
import { type ErrorGroupKey, inErrorGroup } from './dead-letter-error-groups.js';
import type { BrowserFilter } from './dead-letter-query.js';
import { DashboardRequestError } from './errors/dashboard-request.error.js';
import { SelectionChangedError } from './errors/selection-changed.error.js';

/** The most letters one bulk action of the browser selects: the default retention's `maxCount`. */
export const SELECTION_MAX = 10_000;

/** The letters a bulk action names: those matching a filter, in one error group when `group` is set. */
export interface LetterSelection {
  /** The filter's fields; none set: every letter. */
  readonly filter: BrowserFilter;
  /** Only the letters of this handler whose error's first line is this. */
  readonly group?: ErrorGroupKey;
}

/**
 * What a dry run saw: how many letters, the newest one's `deadAt`, and a
 * digest of the letters' ids and times. The confirmation sends it back and
 * acts only if the same selection, bounded by `notAfter`, is still exactly
 * those letters.
 */
export interface SelectionPreview {
  /** How many letters the selection holds. */
  readonly count: number;
  /** The newest letter's `deadAt`, epoch ms; `null` when none matched. */
  readonly notAfter: number | null;
  /** A digest of the letters' ids and `deadAt`s. */
  readonly digest: string;
}

/**
 * The letters of `selection`, newest first, given up at or before
 * `notAfter` when it is set. Reads at most {@link SELECTION_MAX} letters
 * (one list of the store, decoding each): beyond, it refuses, so one click
 * never holds more in memory.
 */
export async function readSelection(
  letters: Pick<DeadLetters, 'list'>,
  selection: LetterSelection,
  notAfter?: number | null,
): Promise<DeadLetter[]> {
  const { filter, group } = selection;
  if (notAfter === null) return [];
  if (group !== undefined && filter.handler !== undefined && filter.handler !== group.handler) return [];
  const narrowed: DeadLetterFilter = {
    ...filter,
    ...(group?.handler === undefined ? {} : { handler: group.handler }),
    // The store narrows by the group's message; the exact first line is checked on each letter.
    ...(group === undefined || group.message === '' || filter.errorIncludes !== undefined
      ? {}
      : { errorIncludes: group.message }),
    ...(notAfter === undefined ? {} : { until: new Date(notAfter + 1) }),
    order: 'newest',
    limit: SELECTION_MAX + 1,
  };
  const read = await letters.list(narrowed);
  if (read.length > SELECTION_MAX) {
    throw new DashboardRequestError(
      `more than ${SELECTION_MAX} dead letters match: narrow the filter, or use the CLI (commitbus dead-letters), which pages through any number`,
    );
  }
  return group === undefined ? read : read.filter((letter) => inErrorGroup(letter, group));
}

/** The {@link SelectionPreview} of `letters` (as {@link readSelection} read them). */
export function previewOf(letters: readonly DeadLetter[]): SelectionPreview {
  return { count: letters.length, notAfter: letters[0]?.deadAt.getTime() ?? null, digest: digestOf(letters) };
}

/** Throws {@link SelectionChangedError} unless `letters` are exactly the ones `preview` saw. */
export function checkPreview(letters: readonly DeadLetter[], preview: SelectionPreview): void {
  if (letters.length !== preview.count || digestOf(letters) !== preview.digest) {
    throw new SelectionChangedError(preview.count, letters.length);
  }
}

function digestOf(letters: readonly DeadLetter[]): string {
  const versions = letters.map((l) => `${l.id}@${l.deadAt.getTime()}`).sort();
  return createHash('sha256').update(versions.join('\n')).digest('hex').slice(0, 32);
}

/** The operator's words for a bulk action: `Re-drive 37 dead letters of handler X with error 'Y'?`. */
export function describeSelection(verb: string, count: number, selection: LetterSelection): string {
  const { filter, group } = selection;
  const handler = group?.handler ?? filter.handler;
  const parts = [
    `${verb} ${count} dead letter${count === 1 ? '' : 's'}`,
    handler === undefined ? '' : ` of handler ${handler}`,
    group === undefined ? '' : ` with error '${group.message}'`,
    filter.handlingKey === undefined ? '' : ` with handling key ${filter.handlingKey}`,
    filter.eventId === undefined ? '' : ` of event ${filter.eventId}`,
    filter.kind === undefined ? '' : ` of kind ${filter.kind}`,
    filter.reason === undefined ? '' : ` given up as ${filter.reason}`,
    filter.errorIncludes === undefined ? '' : ` whose error contains '${filter.errorIncludes}'`,
  ];
  return `${parts.join('')}?`;
}
