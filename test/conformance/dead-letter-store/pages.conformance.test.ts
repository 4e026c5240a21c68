/**
 * `commitbus dead-letters redrive|purge` page through letters by `deadAt`
 * (`forEachDeadLetterPage`) over the `DeadLetterStore` port: with more
 * letters than a page, many given up in the same millisecond, and some left
 * in the store by the action (letters that could not be re-driven), every
 * letter is handed over exactly once and the paging ends. On every adapter in
 * ../adapters.ts, through `DeadLetterFilter.since`/`until`.
 */
import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_PAGE, forEachDeadLetterPage } from '../../../src/cli/dead-letter-pages.js';
import type { DeadLetter } from '../../../src/dead-letters/dead-letter.js';
import { adaptersFor } from '../adapters.js';
import { conformanceBed } from '../bed.js';
import { pageLetters as letters } from './letters.js';

const bed = conformanceBed('conformance-pages');

describe.each(adaptersFor('deadLetters'))('dead-letter pages on $name', (adapter) => {
  it('hands every letter over once, though the action leaves a third of them in the store', {
    timeout: 60_000,
  }, async () => {
    const store = bed.open(adapter).transport.deadLetters;
    const all = letters();
    await store.add(all);
    const handed: string[] = [];
    let pages = 0;
    const count = await forEachDeadLetterPage(store, {}, async (page) => {
      pages++;
      expect(page.length).toBeLessThanOrEqual(DEAD_LETTER_PAGE);
      handed.push(...page.map((l) => l.id));
      // As a re-drive does: the letters it could run go, the others stay.
      await store.remove(page.filter((l) => l.handler === 'go').map((l) => l.id));
    });
    expect(count).toBe(1_300);
    expect(pages).toBe(3);
    expect(new Set(handed).size).toBe(1_300);
    expect((await store.list()).map((l) => l.handler)).toEqual(
      all.filter((l) => l.handler === 'keep').map(() => 'keep'),
    );
  });

  it('keeps to the filter, its time bounds and its limit', { timeout: 60_000 }, async () => {
    const store = bed.open(adapter).transport.deadLetters;
    await store.add(letters());
    const since = new Date(Date.parse('2026-11-25T10:00:00Z') + 800);
    const until = new Date(Date.parse('2026-11-25T10:00:00Z') + 1_000);
    const handed: DeadLetter[] = [];
    const count = await forEachDeadLetterPage(store, { handler: 'go', since, until }, async (page) => {
      handed.push(...page);
    });
    // Letters 800..999, of handler `go`: those whose index is not a multiple of 3.
    expect(count).toBe(133);
    expect(handed.every((l) => l.handler === 'go' && l.deadAt >= since && l.deadAt < until)).toBe(true);
    expect(await forEachDeadLetterPage(store, { handler: 'keep', limit: 650 }, async () => {})).toBe(434);
    expect(await forEachDeadLetterPage(store, { limit: 650 }, async () => {})).toBe(650);
  });
});
