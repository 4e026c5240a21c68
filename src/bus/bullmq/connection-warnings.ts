import type { Logger } from '../logger.js';

const WARN_EVERY_MS = 10_000;

/** The URL without its password, for logs and errors. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * An `error` listener for ioredis connections and BullMQ queues and workers.
 * They report every failed reconnect; this logs the first of a run of errors,
 * then at most one every 10 s.
 */
export function connectionWarnings(logger: Logger, redisUrl: string): (error: Error) => void {
  let last = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < WARN_EVERY_MS) return;
    last = now;
    logger.warn({ error: error.message, redis: redactUrl(redisUrl) }, 'redis connection error; reconnecting');
  };
}
