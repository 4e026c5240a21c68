import { inspect } from 'node:util';
import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * A handler threw (or rejected with) something commitbus cannot use as an
 * `Error` as it is: `undefined`, `null`, a string, a plain object, or an
 * `Error` whose `name`, `message`, `stack` or `code` is not a string or throws
 * when read. commitbus wraps the value in this error before anything else
 * (the transport included) sees it, so the run fails like any other
 * (attempts, backoff, dead letter) and the value is kept as `thrown` and
 * `cause`.
 */
export class ThrownValueError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_THROWN_VALUE';

  constructor(
    readonly handlerName: string,
    /** What the handler threw, as it was. */
    readonly thrown: unknown,
  ) {
    super(`handler ${JSON.stringify(handlerName)} threw ${what(thrown)}`, { cause: thrown });
  }
}

/**
 * `thrown` itself when it is an `Error` whose `name`, `message`, `stack` and
 * `code` can be read as strings (or are absent), else a
 * {@link ThrownValueError} that keeps it. Never throws.
 */
export function asError(thrown: unknown, handlerName: string): Error {
  return isReadableError(thrown) ? thrown : new ThrownValueError(handlerName, thrown);
}

// Reads each field once, the way commitbus and BullMQ read it later; a getter that throws, a Proxy
// trap that throws, or a field that is not a string makes the error unreadable.
function isReadableError(thrown: unknown): thrown is Error {
  try {
    if (!(thrown instanceof Error)) return false;
    const { name, message, stack } = thrown;
    const code: unknown = (thrown as { code?: unknown }).code;
    return (
      typeof name === 'string' &&
      typeof message === 'string' &&
      (stack === undefined || typeof stack === 'string') &&
      (code === undefined || typeof code === 'string' || typeof code === 'number')
    );
  } catch {
    return false;
  }
}

function what(thrown: unknown): string {
  const tail = 'the run counts as a failed attempt.';
  let isError = false;
  try {
    isError = thrown instanceof Error;
  } catch {
    // A Proxy whose getPrototypeOf trap throws: described below like any value.
  }
  return isError
    ? `an Error whose name, message, stack or code is not a string or cannot be read (${describeThrown(thrown)}); ${tail} Give thrown errors a string message (and a string code, if any) that reading does not throw`
    : `${describeThrown(thrown)}, not an Error; ${tail} Throw an Error (or NonRetryableError) so its message and stack are kept`;
}

// A short, one-line rendering: strings quoted, objects shallow, nothing unbounded, never throws.
function describeThrown(thrown: unknown): string {
  let text: string;
  try {
    text = inspect(thrown, { depth: 2, breakLength: Number.POSITIVE_INFINITY, maxStringLength: 200 });
  } catch {
    text = `an unprintable ${typeof thrown}`;
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
