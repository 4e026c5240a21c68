import { Cluster, type ClusterOptions, Redis } from 'ioredis';
import { secretsOf } from '../../config/config-secrets.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { RedisOptions } from '../../config/option-groups.js';
import { parseClusterNode } from '../../config/redis-cluster-node.js';
import { redactRedisUrl, redisUrlProblem } from '../../config/redis-url.js';
import { scrubCommandArgs } from '../../support/sanitize-error.js';
import type { RedisClient } from './redis-client.js';

/**
 * Opens the Redis adapter's connections: to the single Redis at `redisUrl`,
 * or to the Redis Cluster of `redisCluster` (every connection a `Cluster`
 * then, publishing, workers, blocking waits and BullMQ's alike).
 */
export class RedisConnections {
  /** The setting to check when the server cannot be reached. */
  readonly setting: string;
  /** The passwords in the settings (as written and percent-decoded), to mask in errors and logs. */
  readonly secrets: readonly string[];
  /** A URL's user name or password holds a bare `@`, `#` or `?`, which it must percent-encode. */
  readonly bareCredentialCharacters: boolean;
  /** Its connections are to a Redis Cluster. */
  readonly cluster: boolean;
  private readonly lastErrors = new WeakMap<RedisClient, Error>();
  private readonly openOne: (maxRetriesPerRequest: number | null) => RedisClient;
  private readonly where: () => string;

  /**
   * @param redis - where Redis is (the bus's `redis` options).
   * @param onError - `error` listener put on every connection.
   */
  constructor(
    redis: Pick<RedisOptions, 'url' | 'cluster'>,
    private readonly onError: (error: Error) => void,
  ) {
    const cluster = redis.cluster;
    this.secrets = secretsOf(redis);
    this.cluster = cluster !== undefined;
    const urls = cluster === undefined ? [redis.url] : Array.isArray(cluster) ? cluster : [];
    this.bareCredentialCharacters = urls.some(
      (url) => typeof url === 'string' && hasBareCredentialCharacters(url),
    );
    if (cluster === undefined) {
      const url = redis.url;
      // A configuration built by hand skips resolveOptions's check, and ioredis would throw
      // a TypeError that carries the whole URL: refuse it here, masked, without a cause.
      const problem = typeof url === 'string' ? redisUrlProblem(url) : 'it is not a string';
      if (problem !== undefined) {
        throw new ConfigError(
          `redis.url ${JSON.stringify(redactRedisUrl(String(url)))} is wrong: ${problem}`,
        );
      }
      this.setting = 'REDIS_URL (redis.url)';
      this.where = () => `Redis at ${redactRedisUrl(url)}`;
      this.openOne = (maxRetriesPerRequest) =>
        new Redis(url, { maxRetriesPerRequest, ...answerWithin(maxRetriesPerRequest) });
    } else if (Array.isArray(cluster)) {
      const nodes = cluster.map(parseClusterNode);
      // Credentials and TLS of URL nodes apply to every node, the discovered ones too.
      const login = nodes.find((n) => n.password !== undefined || n.username !== undefined);
      const tls = nodes.some((n) => n.tls);
      const startup = nodes.map(({ host, port }) => ({ host, port }));
      this.setting = 'REDIS_CLUSTER_NODES (redis.cluster)';
      this.where = () => `Redis Cluster at ${startup.map((n) => `${n.host}:${n.port}`).join(', ')}`;
      this.openOne = (maxRetriesPerRequest) =>
        new Cluster(startup, {
          redisOptions: {
            maxRetriesPerRequest,
            ...answerWithin(maxRetriesPerRequest),
            ...(login?.username !== undefined ? { username: login.username } : {}),
            ...(login?.password !== undefined ? { password: login.password } : {}),
            ...(tls ? { tls: {} } : {}),
          },
        });
    } else {
      const template = cluster as Cluster;
      this.setting = 'the ioredis Cluster given as redis.cluster';
      this.where = () => {
        const known = template.nodes('master').map((n) => `${n.options.host}:${n.options.port}`);
        return `Redis Cluster${known.length > 0 ? ` at ${known.join(', ')}` : ''}`;
      };
      this.openOne = (maxRetriesPerRequest) => {
        const options: ClusterOptions = {
          ...template.options,
          redisOptions: {
            ...template.options.redisOptions,
            maxRetriesPerRequest,
            ...answerWithin(maxRetriesPerRequest),
          },
        };
        return template.duplicate(undefined, options);
      };
    }
  }

  /**
   * A new connection. `maxRetriesPerRequest: null` waits out outages (workers,
   * as BullMQ requires); a number makes commands fail after that many
   * reconnects (publishing, so the unit of work's retries see the outage),
   * and after {@link FAIL_FAST_ANSWER_MS} without an answer (a server that
   * keeps the connection and answers nothing: frozen, swapping).
   */
  open(maxRetriesPerRequest: number | null): RedisClient {
    const client = this.openOne(maxRetriesPerRequest);
    // First, and synchronous: ioredis rejects the waiting commands with the same error object just
    // before it emits it, so the credentials it keeps on it are gone before any caller's catch runs.
    const scrub = (error: unknown) => scrubCommandArgs(error, this.secrets);
    client.on('error', scrub);
    if (client instanceof Cluster) client.on('node error', scrub);
    client.on('error', this.onError);
    // What a command that gave up ("max retries", "Cluster isn't ready") failed of: see lastError.
    const remember = (error: Error) => this.lastErrors.set(client, error);
    // A cluster's own error says only that every node failed; its nodes' errors say why.
    client.on(client instanceof Cluster ? 'node error' : 'error', remember);
    client.on('ready', () => this.lastErrors.delete(client));
    if (client instanceof Cluster && maxRetriesPerRequest !== null) failFast(client);
    return client;
  }

  /** The last connection error of `client` (one {@link open} made) since it was last ready. */
  lastError(client: RedisClient): Error | undefined {
    return this.lastErrors.get(client);
  }

  /** `Redis at redis://…` or `Redis Cluster at host:port, …`, for logs and errors: never a password. */
  describe(): string {
    return this.where();
  }
}

/**
 * How long a command on a fail-fast connection (`maxRetriesPerRequest` a
 * number) waits for its answer before it fails with ioredis's `Command timed
 * out`, an outage: a frozen server keeps the connection open, so no reconnect
 * ever ends the wait. Long enough for a large publish's scripts.
 */
export const FAIL_FAST_ANSWER_MS = 10_000;

/** ioredis's `commandTimeout` for a connection that fails fast; none for one that waits out outages. */
function answerWithin(maxRetriesPerRequest: number | null): { commandTimeout?: number } {
  return maxRetriesPerRequest === null ? {} : { commandTimeout: FAIL_FAST_ANSWER_MS };
}

/** Whether the user name or password of `url` (before its last `@`) holds a bare `@`, `#` or `?`. */
function hasBareCredentialCharacters(url: string): boolean {
  const credentials = /^[a-z][a-z0-9+.-]*:\/\/([\s\S]*)@/i.exec(url)?.[1];
  return credentials !== undefined && /[@#?]/.test(credentials);
}

/**
 * A cluster connection's commands queue up without limit while no node is
 * reachable (`maxRetriesPerRequest` bounds only each node's own queue). Once
 * the first connection attempt has settled they fail at once instead, as they
 * do on a single Redis after `maxRetriesPerRequest`: when it failed, the
 * commands sent before (queued while it ran) fail with its error, and later
 * ones with ioredis's "Cluster isn't ready" until the cluster is back.
 */
function failFast(cluster: Cluster): void {
  const settled = (error?: Error) => {
    cluster.options.enableOfflineQueue = false;
    cluster.off('ready', settled);
    cluster.off('error', settled);
    // ioredis keeps no public way to fail its offline queue; `flushQueue` is what it calls on `end`
    // (test/config/redis-cluster-config.test.ts fails if an ioredis upgrade drops or changes it).
    if (error !== undefined) (cluster as unknown as OfflineQueue).flushQueue?.(error);
  };
  cluster.on('ready', settled);
  cluster.on('error', settled);
}

/** The part of an ioredis `Cluster` (private in its types) that rejects every queued command. */
interface OfflineQueue {
  flushQueue?(error: Error): void;
}
