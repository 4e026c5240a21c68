/**
 * The `DeadLetterStore` port's contract (src/dead-letters/dead-letter-store.ts),
 * run against every adapter in ../adapters.ts through the store its transport
 * opens: letters kept by id, oldest first, one per id; a version removed only
 * while it is the stored one; a letter it cannot read left out of `list()`,
 * reported by id and removable by id.
 */
import { describe, expect, it } from 'vitest';
import { CorruptDeadLetterError } from '../../../src/index.js';
import { adaptersFor } from '../adapters.js';
import { conformanceBed } from '../bed.js';
import { letter } from './letters.js';
import { rawWriter } from './raw-letter.js';

const bed = conformanceBed('conformance-dead-letters');
const writeRaw = rawWriter(bed);

describe.each(adaptersFor('deadLetters'))('DeadLetterStore on $name', (adapter) => {
  it('keeps letters by id, oldest first, and removes a version only if it is still the stored one', async () => {
    const store = bed.open(adapter).transport.deadLetters;
    expect(await store.list()).toEqual([]);
    const [a, b, c] = [letter('e1.h', 3_000), letter('e2.h', 1_000), letter('e3.h', 2_000)];
    await store.add([a, b, c]);
    expect((await store.list()).map((l) => l.id)).toEqual(['e2.h', 'e3.h', 'e1.h']);
    expect(await store.get('e3.h')).toEqual(c);
    expect(await store.get('missing')).toBeUndefined();

    // The same id again replaces the letter: one letter per failure, however often it is stored.
    const again = letter('e2.h', 4_000, { error: 'boom again' });
    await store.add([again]);
    expect((await store.list()).map((l) => `${l.id} ${l.error}`)).toEqual([
      'e3.h boom',
      'e1.h boom',
      'e2.h boom again',
    ]);

    expect(await store.remove([{ id: 'e2.h', deadAt: b.deadAt }])).toBe(0);
    expect(await store.get('e2.h')).toEqual(again);
    expect(await store.remove([{ id: 'e2.h', deadAt: again.deadAt }, 'e1.h', 'missing'])).toBe(2);
    expect((await store.list()).map((l) => l.id)).toEqual(['e3.h']);
    expect(await store.remove(['e3.h'])).toBe(1);
    expect(await store.list()).toEqual([]);
  });

  it('leaves a letter it cannot read out of list(), reports it by id, and removes it by id', async () => {
    const { transport, name } = bed.open(adapter);
    const store = transport.deadLetters;
    await store.add([letter('e1.h', 1_000), letter('e2.h', 3_000)]);
    await writeRaw(store, name, 'cut', 2_000, '{"id":"cut","kind":"hand');
    await writeRaw(store, name, 'alien', 2_500, '{"id":"alien","note":"another tool"}');

    const corrupt: CorruptDeadLetterError[] = [];
    expect((await store.list({}, (e) => corrupt.push(e))).map((l) => l.id)).toEqual(['e1.h', 'e2.h']);
    expect(corrupt.map((e) => [e.id, e.code])).toEqual([
      ['cut', 'COMMITBUS_CORRUPT_DEAD_LETTER'],
      ['alien', 'COMMITBUS_CORRUPT_DEAD_LETTER'],
    ]);
    expect(corrupt[0]?.message).toContain('bus.deadLetters.purge("cut")');
    expect((await store.list({ limit: 1 })).map((l) => l.id)).toEqual(['e1.h']);
    await expect(store.get('cut')).rejects.toBeInstanceOf(CorruptDeadLetterError);
    expect(await store.remove(['cut', 'alien', 'e1.h', 'e2.h'])).toBe(4);
    expect(await store.list({}, (e) => corrupt.push(e))).toEqual([]);
    expect(corrupt).toHaveLength(2);
  });
});
