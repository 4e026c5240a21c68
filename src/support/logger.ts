/**
 * The logging surface commitbus uses; a pino logger fits it as it is.
 * Each method takes structured fields first, then a message.
 */
export interface Logger {
  /** Routine events: a worker started or stopped. */
  info(fields: object, message: string): void;
  /** Something failed and will be retried or was kept for inspection. */
  warn(fields: object, message: string): void;
  /** Something failed that needs an operator. */
  error(fields: object, message: string): void;
}

/** A logger that writes warnings and errors as JSON lines to stderr. */
export const consoleLogger: Logger = {
  info: () => {},
  warn: (fields, message) => console.warn(JSON.stringify({ level: 'warn', message, ...fields })),
  error: (fields, message) => console.error(JSON.stringify({ level: 'error', message, ...fields })),
};

/** A logger that drops everything. */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * A short, JSON-safe description of an error for logs and stored failures.
 * Never throws: a field that is not a string, or whose getter throws, is
 * described instead of read as it is.
 */
export function describeError(error: unknown): {
  message: string;
  stack?: string;
  name: string;
  code?: string;
} {
  if (!isError(error)) return { name: 'NonError', message: textOf(error) };
  const name = read(error, 'name');
  const stack = read(error, 'stack');
  const code = read(error, 'code');
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: textOf(read(error, 'message')),
    ...(typeof stack === 'string' ? { stack } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

const UNREADABLE = Symbol('unreadable');

function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

function read(error: Error, field: string): unknown {
  try {
    return (error as unknown as Record<string, unknown>)[field];
  } catch {
    return UNREADABLE;
  }
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === UNREADABLE) return '(a value whose getter throws)';
  try {
    return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return `(an unprintable ${typeof value})`;
    }
  }
}
