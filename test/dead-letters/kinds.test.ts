/**
 * Dead-letter kinds are a registry the dead-letters room owns: a kind's owner
 * registers how its letters are re-driven (here a test, from outside), and a
 * letter of a kind no one registered is refused with its code and stays.
 */
import { describe, expect, it } from 'vitest';
import type { DeadLetter, DeadLetterKind } from '../../src/dead-letters/dead-letter.js';
import { webhookDeadLetter } from '../../src/dead-letters/dead-letter.js';
import { DeadLetters } from '../../src/dead-letters/dead-letters.js';
import { DeadLetterRedriveError, UnknownDeadLetterKindError } from '../../src/index.js';
import { embeddedTransport } from '../helpers/embedded.js';
import { recordingLogger } from '../helpers/recording-logger.js';

/** A letter of a kind commitbus does not know, as another room would store it. */
function auditLetter(id: string, payload: string): DeadLetter {
  const base = webhookDeadLetter(id, payload, 'exhausted', [
    { attempt: 1, at: new Date(), error: 'given up by its owner', name: 'Error' },
  ]);
  return { ...base, id: `audit.${id}`, kind: 'audit' as DeadLetterKind };
}

async function bed(letters: readonly DeadLetter[]) {
  const store = embeddedTransport().deadLetters;
  await store.add(letters);
  return { store, deadLetters: new DeadLetters({ store, logger: recordingLogger() }) };
}

describe('dead-letter kinds', () => {
  it('re-drives a kind registered from outside, all its letters in one run, and removes them', async () => {
    const { store, deadLetters } = await bed([auditLetter('a', 'one'), auditLetter('b', 'two')]);
    const runs: string[][] = [];
    deadLetters.kinds.register<string>('audit', {
      prepare: (letter) => letter.payload,
      run: async (work) => {
        runs.push([...work]);
      },
    });
    expect(deadLetters.kinds.names()).toEqual(['audit']);
    expect(await deadLetters.redrive('all')).toBe(2);
    expect(runs).toEqual([['one', 'two']]);
    expect(await store.list()).toEqual([]);
  });

  it("removes the letters of a kind whose run went through when another kind's run fails, so they do not run twice", async () => {
    const other = (letter: DeadLetter): DeadLetter => ({
      ...letter,
      id: letter.id.replace('audit.', 'ledger.'),
      kind: 'ledger' as DeadLetterKind,
    });
    const { store, deadLetters } = await bed([auditLetter('a', 'one'), other(auditLetter('b', 'two'))]);
    const runs: string[] = [];
    deadLetters.kinds.register<string>('audit', {
      prepare: (letter) => letter.payload,
      run: async (work) => void runs.push(...work),
    });
    deadLetters.kinds.register<string>('ledger', {
      prepare: (letter) => letter.payload,
      run: async () => {
        throw new Error('ledger down');
      },
    });
    for (let i = 0; i < 2; i++) {
      await expect(deadLetters.redrive('all')).rejects.toThrow('ledger down');
    }
    expect(runs).toEqual(['one']);
    expect((await store.list()).map((l) => l.id)).toEqual(['ledger.b']);
  });

  it('runs a oneByOne kind letter by letter: a letter whose run fails stays, alone', async () => {
    const { store, deadLetters } = await bed([auditLetter('a', 'ok'), auditLetter('b', 'boom')]);
    deadLetters.kinds.register<string>('audit', {
      prepare: (letter) => letter.payload,
      run: async ([payload]) => {
        if (payload === 'boom') throw new Error('refused by its owner');
      },
      oneByOne: true,
    });
    const refused = await deadLetters.redrive('all').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeadLetterRedriveError);
    expect(refused).toMatchObject({
      redriven: 1,
      failed: [{ id: 'audit.b', error: 'refused by its owner' }],
    });
    expect((await store.list()).map((l) => l.id)).toEqual(['audit.b']);
  });

  it('refuses a letter of a kind no one registered with COMMITBUS_UNKNOWN_DEAD_LETTER_KIND, and keeps it', async () => {
    const { store, deadLetters } = await bed([auditLetter('a', 'one')]);
    const refused = await deadLetters.redrive('audit.a').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeadLetterRedriveError);
    const cause = (refused as DeadLetterRedriveError).cause;
    expect(cause).toBeInstanceOf(UnknownDeadLetterKindError);
    expect(cause).toMatchObject({
      code: 'COMMITBUS_UNKNOWN_DEAD_LETTER_KIND',
      letterId: 'audit.a',
      kind: 'audit',
    });
    expect((refused as DeadLetterRedriveError).failed[0]?.error).toContain('"audit"');
    expect(await store.list()).toHaveLength(1);
  });
});
