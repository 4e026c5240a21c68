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

/** A short, JSON-safe description of an error for logs and stored failures. */
export function describeError(error: unknown): { message: string; stack?: string; name: string } {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  }
  return { name: 'NonError', message: String(error) };
}
