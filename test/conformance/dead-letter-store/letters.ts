/** The letters the dead-letter store suites store (and the Redis store's own test beside them). */
import { type DeadLetter, handlerDeadLetter } from '../../../src/dead-letters/dead-letter.js';

/** A day ago, to the second: the letters' times count from it, well inside the default retention. */
export const LETTERS_BASE = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;

/** A letter as a store would hold it: `<eventId>.<handler>`, given up `deadAt` ms after {@link LETTERS_BASE}. */
export function letter(id: string, deadAt: number, overrides: Partial<DeadLetter> = {}): DeadLetter {
  const at = new Date(LETTERS_BASE + deadAt);
  return {
    id,
    kind: 'handler',
    eventId: id.split('.')[0] as string,
    handlingKey: 'RECORD.CREATE',
    handler: id.split('.').slice(1).join('.'),
    reason: 'exhausted',
    error: 'boom',
    attempts: [{ attempt: 1, at, error: 'boom', name: 'Error', stack: 'Error: boom\n    at here' }],
    firstFailedAt: at,
    deadAt: at,
    payload: '{}',
    ...overrides,
  };
}

/** 1,300 letters: 700 given up in one millisecond, then 600 one ms apart; handler `keep` for every third. */
export function pageLetters(): DeadLetter[] {
  const base = Date.parse('2026-11-25T10:00:00Z');
  return Array.from({ length: 1_300 }, (_, i) =>
    handlerDeadLetter(
      JSON.stringify({ id: `e${i}`, handlingKey: 'RECORD.CREATE' }),
      i % 3 === 0 ? 'keep' : 'go',
      'exhausted',
      [{ attempt: 1, at: new Date(base), error: 'down', name: 'Error' }],
      new Date(i < 700 ? base : base + i),
    ),
  );
}
