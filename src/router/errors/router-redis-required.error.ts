import { CommitbusError } from '../../support/commitbus-error.js';

/** Where the router looked for a Redis: the options `startRouter` got, or the environment `commitbus router` read. */
export type RouterRedisSource = 'options' | 'environment';

/** What to set, by where the router looked. */
const WHAT_TO_SET: Record<RouterRedisSource, string> = {
  options:
    "pass startRouter(config, options, { transport: redisTransport() }) from 'commitbus/redis' (on the Redis config names: redis.url or redis.cluster, which loadRouterConfigFromEnv reads from REDIS_URL, REDIS_CLUSTER_NODES or Routemaster's ROUTEMASTER_REDIS_URL); or { stores: bus.router } to run on a bus's stores (a bus on Redis)",
  environment:
    "set REDIS_URL (or COMMITBUS_REDIS_URL, REDIS_CLUSTER_NODES, or Routemaster's ROUTEMASTER_REDIS_URL), or run `commitbus router --dev` to use the Redis at redis://127.0.0.1:6379",
};

/**
 * The router was started with nowhere to keep its records: `startRouter`
 * without `deps.transport` (or `deps.stores`), or `commitbus router` with no
 * Redis in the environment. It is a server: its tokens, subscribers and
 * queued events must outlive a restart, so it does not fall back to memory
 * on its own. The message says what to pass or set.
 */
export class RouterRedisRequiredError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_ROUTER_REDIS_REQUIRED';

  constructor(
    /** Where the router looked: `startRouter`'s options, or the environment. */
    readonly source: RouterRedisSource = 'options',
  ) {
    super(
      `the router keeps its tokens, subscribers and queued events where they outlive a restart, and ${source === 'environment' ? 'no Redis is set' : 'was given no transport adapter to keep them on'}: ${WHAT_TO_SET[source] ?? WHAT_TO_SET.options}`,
    );
  }
}
