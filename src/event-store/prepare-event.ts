import { InvalidStoreEventError } from './errors/invalid-store-event.error.js';
import type { PreparedEvent } from './event-queue.js';

/** What {@link prepareEvent} checks against. */
export interface DispatchLimits {
  /** Largest serialized data, in bytes. */
  readonly maxEventBytes: number;
  /** Whether an unknown type is refused at dispatch, and the known ones. */
  readonly knownTypes?: ReadonlySet<string>;
  /** Called with an unknown type when `knownTypes` is set. */
  readonly onUnknown?: (type: string) => never;
}

/**
 * Checks and serializes one event for the queue: a type of 1 to 255
 * characters, data JSON carries unchanged (no NaN, Infinity, BigInt, cycle,
 * function, symbol or undefined in an array), within the size limit.
 */
export function prepareEvent(
  type: unknown,
  data: unknown,
  limits: DispatchLimits,
  options: { important?: boolean; ts?: number } = {},
): PreparedEvent {
  if (typeof type !== 'string' || type.length === 0 || type.length > 255) {
    throw new InvalidStoreEventError(
      `an event type must be a string of 1 to 255 characters, got ${describe(type)}`,
    );
  }
  if (type.includes('\u0000') || LONE_SURROGATE.test(type)) {
    // PostgreSQL refuses a NUL in text, and a lone surrogate would be stored as another type.
    throw new InvalidStoreEventError(
      'an event type cannot hold a NUL character or a lone UTF-16 surrogate (it cannot be stored as it is)',
    );
  }
  if (limits.knownTypes !== undefined && !limits.knownTypes.has(type)) limits.onUnknown?.(type);
  let json: string;
  try {
    json = JSON.stringify(data === undefined ? null : data, valueChecker(type));
  } catch (error) {
    if (error instanceof InvalidStoreEventError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidStoreEventError(`the data of "${type}" cannot be stored as JSON: ${reason}`, {
      cause: error,
    });
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > limits.maxEventBytes) {
    throw new InvalidStoreEventError(
      `the data of "${type}" is ${bytes} bytes, over the limit of ${limits.maxEventBytes} (maxEventBytes): keep big data elsewhere and dispatch a reference to it`,
    );
  }
  const ts = options.ts ?? Date.now();
  if (!Number.isSafeInteger(ts) || ts < 0)
    throw new InvalidStoreEventError(`ts must be epoch milliseconds, got ${describe(options.ts)}`);
  return { type, data: JSON.parse(json), json, ts, important: options.important === true, bytes };
}

// A UTF-16 surrogate without its pair.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// A JSON.stringify replacer refusing what JSON would change or drop.
function valueChecker(type: string): (this: unknown, key: string, value: unknown) => unknown {
  return function checkValue(this: unknown, key: string, value: unknown): unknown {
    const where = key === '' ? 'the data' : `field "${key}"`;
    let problem: string | undefined;
    if (typeof value === 'number' && !Number.isFinite(value))
      problem = `${where} is ${value} (JSON would store null)`;
    else if (typeof value === 'function' || typeof value === 'symbol')
      problem = `${where} is a ${typeof value}`;
    else if (value === undefined && Array.isArray(this))
      problem = `${where} of an array is undefined (JSON would store null)`;
    if (problem !== undefined) {
      throw new InvalidStoreEventError(
        `the data of "${type}" cannot be stored as JSON: ${problem}; send plain JSON values (strings, finite numbers, booleans, null, arrays, objects)`,
      );
    }
    return value;
  };
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return value.length === 0 ? 'an empty string' : `a string of ${value.length} characters`;
  return value === null ? 'null' : typeof value;
}
