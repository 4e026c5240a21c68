import { FAIL_FAST_ANSWER_MS } from './redis-connections.js';

/** What went wrong with Redis, and what to do about it, for a `TransportUnavailableError`. */
export interface RedisFailure {
  /** The cause, first: `connection refused (ECONNREFUSED)`, `Redis refused the user name or password (WRONGPASS)`. */
  readonly reason: string;
  /** What to do, as a sentence. */
  readonly fix: string;
  /** The error that says it (the connection's own when `error` only said that retries ran out). */
  readonly root: unknown;
}

/** Where the connection's settings are, and whether their credentials are written so a URL misreads them. */
export interface RedisFailureContext {
  /** The setting to check, e.g. `REDIS_URL (redis.url)`. */
  readonly setting: string;
  /** The URL's user name or password holds a bare `@`, `#` or `?` (not percent-encoded). */
  readonly bareCredentialCharacters: boolean;
  /** The connection is to a Redis Cluster, whose nodes' connection errors ioredis does not pass on. */
  readonly cluster: boolean;
}

// ioredis's errors that only say a command gave up, not why.
const GAVE_UP =
  /Reached the max retries per request limit|Cluster isn't ready|Connection is closed|Stream isn't writeable/;

const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (ECONNREFUSED): nothing listens there',
  ECONNRESET: 'the connection was reset (ECONNRESET)',
  ETIMEDOUT: 'the server did not answer in time (ETIMEDOUT)',
  EHOSTUNREACH: 'the host cannot be reached (EHOSTUNREACH)',
  ENETUNREACH: 'the network cannot be reached (ENETUNREACH)',
};

/**
 * Names the cause of a failed Redis command first, and its fix: the
 * connection's last error (`ECONNREFUSED`, `WRONGPASS`) when ioredis's own
 * says only that it gave up (`Reached the max retries per request limit`),
 * the last node's error of a cluster that could not be reached.
 *
 * @param error - what the command failed with.
 * @param lastConnectionError - the connection's last `error` event since it was last ready.
 */
export function describeRedisFailure(
  error: unknown,
  lastConnectionError: Error | undefined,
  context: RedisFailureContext,
): RedisFailure {
  let root = lastNodeErrorOf(error);
  if (lastConnectionError !== undefined && root instanceof Error && GAVE_UP.test(root.message)) {
    root = lastConnectionError;
  }
  const message = root instanceof Error ? root.message : String(root);
  const code = (root as { code?: unknown } | null)?.code;
  const checkServer = `Is the server running, and is ${context.setting} right?`;
  const auth = /^(WRONGPASS|NOAUTH|NOPERM)\b/.exec(message)?.[1];
  if (auth !== undefined) {
    const encode = context.bareCredentialCharacters
      ? ': a user name or password holding "@", "#" or "?" must be percent-encoded in the URL, so percent-encode it (encodeURIComponent; "@" is %40, "#" is %23, "?" is %3F)'
      : '';
    const reason =
      auth === 'NOAUTH'
        ? 'Redis wants a password and got none (NOAUTH)'
        : auth === 'NOPERM'
          ? `the Redis user may not run this command (NOPERM)`
          : 'Redis refused the user name or password (WRONGPASS)';
    return { root, reason, fix: `Check the user name and password in ${context.setting}${encode}.` };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { root, reason: `host not found (${code})`, fix: `Check the host name in ${context.setting}.` };
  }
  if (context.cluster && /^(Connection is closed|Failed to refresh slots cache)/.test(message)) {
    return {
      root,
      reason: 'no node of the cluster could be reached (refused, closed or not answering)',
      fix: `Are its nodes running, and is ${context.setting} right?`,
    };
  }
  if (/^Command timed out/.test(message)) {
    return {
      root,
      reason: `the server did not answer within ${FAIL_FAST_ANSWER_MS} ms (frozen or overloaded)`,
      fix: checkServer,
    };
  }
  const network = typeof code === 'string' ? NETWORK_REASONS[code] : undefined;
  if (network !== undefined) return { root, reason: network, fix: checkServer };
  return { root, reason: message.replace(/\.+$/, ''), fix: checkServer };
}

/** A cluster's "every node failed" error's last node error; any other error as it is. */
function lastNodeErrorOf(error: unknown): unknown {
  const lastNode = (error as { lastNodeError?: unknown } | null)?.lastNodeError;
  return error instanceof Error && error.name === 'ClusterAllFailedError' && lastNode instanceof Error
    ? lastNode
    : error;
}
