import { type AttemptFailureJson, attemptFailureFromJson } from './attempt-failure.js';
import type { DeadLetter } from './dead-letter.js';
import { CorruptDeadLetterError } from './errors/corrupt-dead-letter.error.js';

type DeadLetterJson = Omit<DeadLetter, 'attempts' | 'firstFailedAt' | 'deadAt'> & {
  attempts: AttemptFailureJson[];
  firstFailedAt: string;
  deadAt: string;
};

/** A dead letter as stored: JSON, dates as ISO strings. */
export function encodeDeadLetter(letter: DeadLetter): string {
  return JSON.stringify(letter);
}

/**
 * A dead letter back from {@link encodeDeadLetter}, its dates restored.
 * Throws {@link CorruptDeadLetterError} naming `id` (the id it is stored
 * under) when `json` is not a letter.
 */
export function decodeDeadLetter(json: string, id: string): DeadLetter {
  let parsed: DeadLetterJson;
  try {
    parsed = JSON.parse(json) as DeadLetterJson;
  } catch (error) {
    throw new CorruptDeadLetterError(id, `not JSON: ${(error as Error).message}`, { cause: error });
  }
  const problem = problemOf(parsed, id);
  if (problem !== undefined) throw new CorruptDeadLetterError(id, problem);
  return {
    ...parsed,
    attempts: parsed.attempts.map(attemptFailureFromJson),
    firstFailedAt: new Date(parsed.firstFailedAt),
    deadAt: new Date(parsed.deadAt),
  };
}

/**
 * {@link decodeDeadLetter} for a listing: a letter that cannot be read is
 * handed to `onCorrupt` and comes back `undefined`, so the others are listed.
 */
export function readLetter(
  json: string,
  id: string,
  onCorrupt?: (error: CorruptDeadLetterError) => void,
): DeadLetter | undefined {
  try {
    return decodeDeadLetter(json, id);
  } catch (error) {
    if (!(error instanceof CorruptDeadLetterError)) throw error;
    onCorrupt?.(error);
    return undefined;
  }
}

// The fields list(), the filters and redrive() rely on; the rest is shown as it is.
function problemOf(parsed: unknown, id: string): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not a JSON object';
  const letter = parsed as Record<string, unknown>;
  if (letter.id !== id) return `its id is ${JSON.stringify(letter.id)}`;
  for (const field of ['kind', 'reason', 'error', 'payload', 'firstFailedAt', 'deadAt']) {
    if (typeof letter[field] !== 'string') return `no string ${field}`;
  }
  for (const field of ['firstFailedAt', 'deadAt']) {
    if (Number.isNaN(Date.parse(letter[field] as string))) return `${field} is not a date`;
  }
  const attempts = letter.attempts;
  if (!Array.isArray(attempts) || !attempts.every((a) => typeof a === 'object' && a !== null)) {
    return 'no list of attempts';
  }
  return undefined;
}
