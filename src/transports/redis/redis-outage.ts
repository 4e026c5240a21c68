import { TransportUnavailableError } from '../../support/errors/transport-unavailable.error.js';

// Redis replies that say the server cannot take commands now, not that this command is wrong.
const TRANSIENT_REPLIES =
  /^(LOADING|BUSY|OOM|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|MISCONF|NOAUTH|WRONGPASS|NOPERM|MOVED|ASK)\b/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES =
  /Connection is closed|Stream isn't writeable|Command timed out|None of startup nodes|Cluster isn't ready|Failed to refresh slots cache/;

/**
 * Whether an error from ioredis (or BullMQ on it) means Redis cannot be
 * reached or cannot take commands now: a connection that is down or closing,
 * retries given up, a timeout, or a reply such as `LOADING`, `OOM` or
 * `CLUSTERDOWN`. Any other error (a reply such as `WRONGTYPE`, a job BullMQ
 * refuses before sending it) is about the command itself, and sending it again
 * unchanged would fail again.
 */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Already named as an outage by one of our stores (the dead-letter store, the job queues).
  if (error instanceof TransportUnavailableError) return true;
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'ClusterAllFailedError') return true;
  if (error.name === 'ReplyError') return TRANSIENT_REPLIES.test(error.message);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return CONNECTION_MESSAGES.test(error.message);
}
