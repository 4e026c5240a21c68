/**
 * The `DeadLetterStore` port's counts and retention (`counts()`, `add`'s
 * drops; src/dead-letters/dead-letter-store.ts), against every adapter in
 * ../adapters.ts: counts by handler, kind and reason exact after each add,
 * replace, remove (as purge does, by id) and re-drive (by version), a letter
 * written around the store counted in no group; and the retention dropping
 * the oldest letters first, counted in `dropped`.
 */
import { describe, expect, it } from 'vitest';
import type { DeadLetterCounts, DeadLetterStore } from '../../../src/dead-letters/dead-letter-store.js';
import { adaptersFor } from '../adapters.js';
import { conformanceBed } from '../bed.js';
import { letter } from './letters.js';
import { rawWriter } from './raw-letter.js';

const bed = conformanceBed('conformance-dl-counts');
const writeRaw = rawWriter(bed);

/** The groups as sorted `handler kind reason count` lines, and the total and dropped counts. */
async function countsOf(
  store: DeadLetterStore,
): Promise<{ total: number; dropped: number; groups: string[] }> {
  const counts: DeadLetterCounts = await store.counts();
  const groups = counts.groups.map((g) => `${g.handler ?? '-'} ${g.kind} ${g.reason} ${g.count}`).sort();
  return { total: counts.total, dropped: counts.dropped, groups };
}

describe.each(adaptersFor('deadLetters'))('DeadLetterStore counts on $name', (adapter) => {
  it('counts letters by handler, kind and reason after each add, replace, purge and re-drive', async () => {
    const store = bed.open(adapter).transport.deadLetters;
    expect(await countsOf(store)).toEqual({ total: 0, dropped: 0, groups: [] });

    const a = letter('e1.mail', 1_000);
    const b = letter('e2.mail', 2_000);
    const c = letter('e3.audit', 3_000, { reason: 'timeout' });
    const d = letter('e4', 4_000, { kind: 'undecodable', handler: undefined, reason: 'malformed' });
    expect(await store.add([a, b, c, d])).toBe(0);
    expect(await countsOf(store)).toEqual({
      total: 4,
      dropped: 0,
      groups: ['- undecodable malformed 1', 'audit handler timeout 1', 'mail handler exhausted 2'],
    });

    // Stored again under its id, a letter moves to its new group rather than counting twice.
    const b2 = letter('e2.mail', 5_000, { reason: 'timeout' });
    await store.add([b2]);
    expect((await countsOf(store)).groups).toEqual([
      '- undecodable malformed 1',
      'audit handler timeout 1',
      'mail handler exhausted 1',
      'mail handler timeout 1',
    ]);

    // A re-drive removes the version it read: a stale version removes nothing and counts nothing out.
    expect(await store.remove([{ id: 'e2.mail', deadAt: b.deadAt }])).toBe(0);
    expect((await countsOf(store)).total).toBe(4);
    expect(await store.remove([{ id: 'e2.mail', deadAt: b2.deadAt }])).toBe(1);
    // A purge removes by id; an id it does not hold counts nothing out.
    expect(await store.remove(['e1.mail', 'e4', 'missing', 'e4'])).toBe(2);
    expect(await countsOf(store)).toEqual({ total: 1, dropped: 0, groups: ['audit handler timeout 1'] });
    expect(await store.remove(['e3.audit'])).toBe(1);
    expect(await countsOf(store)).toEqual({ total: 0, dropped: 0, groups: [] });
  });

  it('keeps the counts exact under concurrent adds and removes of the same letters', async () => {
    const store = bed.open(adapter).transport.deadLetters;
    // Ten callers at once, each storing ids e0..e19 of its own reason, then five removing half of them.
    const reasons = ['exhausted', 'timeout'] as const;
    await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        store.add(
          Array.from({ length: 20 }, (_, i) => letter(`e${i}.h`, 1_000 + i, { reason: reasons[n % 2] })),
        ),
      ),
    );
    await Promise.all(
      Array.from({ length: 5 }, () => store.remove(Array.from({ length: 10 }, (_, i) => `e${i * 2}.h`))),
    );
    const left = await store.list();
    expect(left.map((l) => l.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `e${i * 2 + 1}.h`).sort(),
    );
    const counts = await store.counts();
    expect(counts.total).toBe(10);
    for (const reason of reasons)
      expect(counts.groups.find((g) => g.reason === reason)?.count ?? 0).toBe(
        left.filter((l) => l.reason === reason).length,
      );
  });

  it('counts no letter written around the store, and removing one leaves the counts as they are', async () => {
    const { transport, name } = bed.open(adapter);
    const store = transport.deadLetters;
    await store.add([letter('e1.h', 1_000), letter('e2.h', 3_000)]);
    await writeRaw(store, name, 'cut', 2_000, '{"id":"cut","kind":"hand');
    expect(await countsOf(store)).toEqual({ total: 2, dropped: 0, groups: ['h handler exhausted 2'] });
    expect(await store.remove(['cut'])).toBe(1);
    expect(await countsOf(store)).toEqual({ total: 2, dropped: 0, groups: ['h handler exhausted 2'] });
    expect(await store.remove(['e1.h', 'e2.h'])).toBe(2);
    expect(await countsOf(store)).toEqual({ total: 0, dropped: 0, groups: [] });
  });

  it('drops the oldest letters beyond deadLetters.maxCount, and those past maxAgeMs, counting each', async () => {
    const store = bed.open(adapter, { deadLetters: { maxCount: 3, maxAgeMs: 0 } }).transport.deadLetters;
    // Stored newest first: the drop goes by when letters were given up, not by when they were stored.
    expect(await store.add([letter('e4.h', 4_000), letter('e3.h', 3_000), letter('e2.h', 2_000)])).toBe(0);
    expect(await store.add([letter('e1.h', 1_000), letter('e5.h', 5_000)])).toBe(2);
    expect((await store.list()).map((l) => l.id)).toEqual(['e3.h', 'e4.h', 'e5.h']);
    expect(await countsOf(store)).toEqual({ total: 3, dropped: 2, groups: ['h handler exhausted 3'] });
    expect(await store.add([letter('e6.h', 6_000, { reason: 'timeout' })])).toBe(1);
    expect((await store.list()).map((l) => l.id)).toEqual(['e4.h', 'e5.h', 'e6.h']);
    expect(await countsOf(store)).toEqual({
      total: 3,
      dropped: 3,
      groups: ['h handler exhausted 2', 'h handler timeout 1'],
    });

    const aged = bed.open(adapter, { deadLetters: { maxCount: 0, maxAgeMs: 3_600_000 } }).transport
      .deadLetters;
    const now = Date.now();
    const old = (id: string, agoMs: number) => ({ ...letter(id, 0), deadAt: new Date(now - agoMs) });
    expect(await aged.add([old('o1.h', 7_200_000), old('o2.h', 3_700_000), old('n1.h', 60_000)])).toBe(2);
    expect((await aged.list()).map((l) => l.id)).toEqual(['n1.h']);
    expect(await countsOf(aged)).toEqual({ total: 1, dropped: 2, groups: ['h handler exhausted 1'] });
  });
});
