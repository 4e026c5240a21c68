import { describeError } from '../support/logger.js';

/** One failed run of a handler, or one failed decode of a payload. */
export interface AttemptFailure {
  /** Which attempt it was: 1 for the first run. */
  readonly attempt: number;
  /** When it failed. */
  readonly at: Date;
  /** The error's message. */
  readonly error: string;
  /** The error's class name, e.g. `HandlerTimeoutError`. */
  readonly name: string;
  /** The error's `code`, when it has a string one (e.g. `COMMITBUS_HANDLER_TIMEOUT`). */
  readonly code?: string;
  /** The error's stack trace, when it has one. */
  readonly stack?: string;
}

/** An {@link AttemptFailure} as it travels in job data: `at` as an ISO string. */
export type AttemptFailureJson = Omit<AttemptFailure, 'at'> & { readonly at: string };

/** Describes a failed attempt from what was thrown; never throws. */
export function attemptFailure(error: unknown, attempt: number, at: Date = new Date()): AttemptFailure {
  const { name, message, stack, code } = describeError(error);
  return {
    attempt,
    at,
    error: message,
    name,
    ...(code !== undefined ? { code } : {}),
    ...(stack !== undefined ? { stack } : {}),
  };
}

/** The JSON form of a failed attempt. */
export function attemptFailureToJson(failure: AttemptFailure): AttemptFailureJson {
  return { ...failure, at: failure.at.toISOString() };
}

/** A failed attempt back from its JSON form. */
export function attemptFailureFromJson(json: AttemptFailureJson): AttemptFailure {
  return { ...json, at: new Date(json.at) };
}
