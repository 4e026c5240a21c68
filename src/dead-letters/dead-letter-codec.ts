import { type AttemptFailureJson, attemptFailureFromJson } from './attempt-failure.js';
import type { DeadLetter } from './dead-letter.js';

type DeadLetterJson = Omit<DeadLetter, 'attempts' | 'firstFailedAt' | 'deadAt'> & {
  attempts: AttemptFailureJson[];
  firstFailedAt: string;
  deadAt: string;
};

/** A dead letter as stored: JSON, dates as ISO strings. */
export function encodeDeadLetter(letter: DeadLetter): string {
  return JSON.stringify(letter);
}

/** A dead letter back from {@link encodeDeadLetter}, its dates restored. */
export function decodeDeadLetter(json: string): DeadLetter {
  const parsed = JSON.parse(json) as DeadLetterJson;
  return {
    ...parsed,
    attempts: parsed.attempts.map(attemptFailureFromJson),
    firstFailedAt: new Date(parsed.firstFailedAt),
    deadAt: new Date(parsed.deadAt),
  };
}
