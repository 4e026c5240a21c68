/**
 * `DeadLetterFilter.order` and `after` over the `DeadLetterStore` port: pages
 * chained by their last letter, newest or oldest first, visit each of 1,300
 * letters once (700 of them given up in one millisecond), in that order, with
 * a filter, time bounds and `errorIncludes` kept. On every adapter in
 * ../adapters.ts.
 */
import { describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../../src/dead-letters/dead-letter.js';
import type { DeadLetterFilter, DeadLetterStore } from '../../../src/dead-letters/dead-letter-store.js';
import { adaptersFor } from '../adapters.js';
import { conformanceBed } from '../bed.js';
import { pageLetters } from './letters.js';

const bed = conformanceBed('conformance-cursor');

/** Every page of `filter` read `size` at a time, each after the last letter of the one before. */
async function pages(
  store: DeadLetterStore,
  filter: DeadLetterFilter,
  size: number,
): Promise<DeadLetter[][]> {
  const out: DeadLetter[][] = [];
  let after: DeadLetter | undefined;
  for (;;) {
    const page = await store.list({ ...filter, limit: size, ...(after === undefined ? {} : { after }) });
    if (page.length === 0) return out;
    out.push(page);
    // A cursor that does not move would page forever: fail instead.
    if (out.length > 200) throw new Error('more than 200 pages: the cursor does not move on');
    after = page.at(-1);
  }
}

function times(letters: readonly DeadLetter[]): number[] {
  return letters.map((l) => l.deadAt.getTime());
}

describe.each(adaptersFor('deadLetters'))('dead-letter cursors on $name', (adapter) => {
  it('pages newest first and oldest first through 1,300 letters, each once, in order', {
    timeout: 60_000,
  }, async () => {
    const store = bed.open(adapter).transport.deadLetters;
    const all = pageLetters();
    await store.add(all);
    for (const order of ['newest', 'oldest'] as const) {
      const read = await pages(store, { order }, 120);
      expect(read.length).toBe(11);
      const flat = read.flat();
      expect(flat.length).toBe(1_300);
      expect(new Set(flat.map((l) => l.id)).size).toBe(1_300);
      const sorted = [...times(flat)].sort((a, b) => (order === 'newest' ? b - a : a - b));
      expect(times(flat)).toEqual(sorted);
    }
    // The first page newest first holds the newest letters.
    const first = await store.list({ order: 'newest', limit: 5 });
    expect(times(first)).toEqual([1299, 1298, 1297, 1296, 1295].map((i) => all[i]?.deadAt.getTime()));
  });

  it('keeps to the filter, the time bounds and errorIncludes while paging', { timeout: 60_000 }, async () => {
    const store = bed.open(adapter).transport.deadLetters;
    const all = pageLetters().map((l, i) =>
      i % 5 === 0 ? { ...l, error: `socket hang up #${i}`, attempts: l.attempts } : l,
    );
    await store.add(all);
    const base = all[0]?.deadAt.getTime() as number;
    const filter: DeadLetterFilter = {
      handler: 'go',
      since: new Date(base + 750),
      until: new Date(base + 1_200),
      order: 'newest',
    };
    const read = (await pages(store, filter, 40)).flat();
    const expected = all.filter(
      (l) => l.handler === 'go' && l.deadAt.getTime() >= base + 750 && l.deadAt.getTime() < base + 1_200,
    );
    expect(read.map((l) => l.id).sort()).toEqual(expected.map((l) => l.id).sort());
    expect(times(read)).toEqual([...times(read)].sort((a, b) => b - a));
    const hangUps = (await pages(store, { errorIncludes: 'hang up' }, 100)).flat();
    expect(hangUps.length).toBe(260);
    expect(hangUps.every((l) => l.error.startsWith('socket hang up'))).toBe(true);
    // Within the 700 letters of one millisecond the cursor still splits pages without loss.
    const tied = (await pages(store, { until: new Date(base + 1), order: 'newest' }, 33)).flat();
    expect(new Set(tied.map((l) => l.id)).size).toBe(700);
  });
});
