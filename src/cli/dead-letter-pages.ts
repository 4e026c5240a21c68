import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { DeadLetterFilter } from '../dead-letters/dead-letter-store.js';
import type { DeadLetters } from '../dead-letters/dead-letters.js';

/** Letters read per page: bounds memory however many letters match. */
export const DEAD_LETTER_PAGE = 500;

/**
 * Calls `act` with the letters matching `filter`, a page at a time, oldest
 * first, until none is left or `filter.limit` letters were handed over. Pages
 * follow `deadAt` (a letter `act` leaves in the store is not handed over
 * twice), so it never holds more than a page in memory.
 */
export async function forEachDeadLetterPage(
  letters: Pick<DeadLetters, 'list'>,
  filter: DeadLetterFilter,
  act: (page: readonly DeadLetter[]) => Promise<void>,
): Promise<number> {
  let handed = 0;
  let since = filter.since;
  // The letters already handed over that were given up at `since` itself.
  const seen = new Set<string>();
  for (;;) {
    const want = Math.min(DEAD_LETTER_PAGE, (filter.limit ?? Number.POSITIVE_INFINITY) - handed);
    if (want <= 0) return handed;
    const read = await letters.list({
      ...filter,
      ...(since !== undefined ? { since } : {}),
      limit: want + seen.size,
    });
    const page = read.filter((letter) => !seen.has(letter.id)).slice(0, want);
    const last = page.at(-1);
    if (last === undefined) return handed;
    await act(page);
    handed += page.length;
    if (since?.getTime() !== last.deadAt.getTime()) seen.clear();
    since = last.deadAt;
    for (const letter of page) if (letter.deadAt.getTime() === since.getTime()) seen.add(letter.id);
  }
}

/** How many letters match `filter` (up to its `limit`), read a page at a time. */
export function countDeadLetters(
  letters: Pick<DeadLetters, 'list'>,
  filter: DeadLetterFilter,
): Promise<number> {
  return forEachDeadLetterPage(letters, filter, async () => {});
}

/** A page of a list, and how many letters match in all. */
export interface DeadLetterListing {
  /** The letters shown. */
  readonly letters: readonly DeadLetter[];
  /** How many letters match the filter, however many are shown. */
  readonly total: number;
}

/**
 * At most `limit` letters matching `filter` (its own `limit` aside), oldest
 * first or, with `newestFirst`, the newest ones newest first, with how many
 * match in all. Counting (and the newest) reads every matching letter a page
 * at a time; a list that shows them all reads once.
 */
export async function listDeadLetters(
  letters: Pick<DeadLetters, 'list'>,
  filter: DeadLetterFilter,
  limit: number,
  newestFirst: boolean,
): Promise<DeadLetterListing> {
  const { limit: _shown, ...matching } = filter;
  if (!newestFirst) {
    const oldest = await letters.list({ ...matching, limit });
    const total = oldest.length < limit ? oldest.length : await countDeadLetters(letters, matching);
    return { letters: oldest, total };
  }
  let newest: DeadLetter[] = [];
  const total = await forEachDeadLetterPage(letters, matching, async (page) => {
    newest = [...newest, ...page].slice(-limit);
  });
  return { letters: newest.reverse(), total };
}
