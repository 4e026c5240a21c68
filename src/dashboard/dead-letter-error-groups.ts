import type { DeadLetter } from '../dead-letters/dead-letter.js';

/** Letters of one handler whose last error starts with the same line: one row of the grouped view. */
export interface ErrorGroup {
  /** The letters' handler (`undefined` for letters of none, such as `undecodable` ones). */
  readonly handler: string | undefined;
  /** The first line of the last attempt's error message. */
  readonly message: string;
  /** How many letters the group holds. */
  readonly count: number;
  /** When its oldest letter was given up. */
  readonly firstSeen: Date;
  /** When its newest letter was given up. */
  readonly lastSeen: Date;
}

/** What names a group: a handler and an error's first line. */
export type ErrorGroupKey = Pick<ErrorGroup, 'handler' | 'message'>;

/** The first line of an error message, trimmed: `ECONNREFUSED 10.0.0.7:5432` of a multi-line one. */
export function firstLine(error: string): string {
  return (error.split('\n', 1)[0] ?? '').trim();
}

/** Whether `letter` belongs to the group `key`. */
export function inErrorGroup(letter: DeadLetter, key: ErrorGroupKey): boolean {
  return letter.handler === key.handler && firstLine(letter.error) === key.message;
}

/** The groups of `letters`, the largest first (then the most recent). */
export function groupByError(letters: Iterable<DeadLetter>): ErrorGroup[] {
  const groups = new Map<string, { -readonly [K in keyof ErrorGroup]: ErrorGroup[K] }>();
  for (const letter of letters) {
    const message = firstLine(letter.error);
    const id = JSON.stringify([letter.handler ?? null, message]);
    const group = groups.get(id);
    if (group === undefined) {
      groups.set(id, {
        handler: letter.handler,
        message,
        count: 1,
        firstSeen: letter.deadAt,
        lastSeen: letter.deadAt,
      });
      continue;
    }
    group.count++;
    if (letter.deadAt < group.firstSeen) group.firstSeen = letter.deadAt;
    if (letter.deadAt > group.lastSeen) group.lastSeen = letter.deadAt;
  }
  return [...groups.values()].sort(
    (a, b) => b.count - a.count || b.lastSeen.getTime() - a.lastSeen.getTime(),
  );
}
