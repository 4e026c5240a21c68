import type { Logger } from '../../support/logger.js';

const WARN_EVERY_MS = 10_000;

/**
 * An `error` listener for ioredis connections and BullMQ queues and workers.
 * They report every failed reconnect; this logs the first of a run of errors,
 * then at most one every 10 s, naming the server with `where()` (no password).
 */
export function connectionWarnings(logger: Logger, where: () => string): (error: Error) => void {
  let last = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < WARN_EVERY_MS) return;
    last = now;
    logger.warn({ error: error.message, redis: where() }, 'redis connection error; reconnecting');
  };
}
