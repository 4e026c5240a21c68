import type { CommitbusOptions } from '../config/commitbus-options.js';
import { warnDeprecatedOptions } from '../config/deprecation-warnings.js';
import { ConfigError } from '../config/errors/config.error.js';
import { resolveOptions } from '../config/resolve-options.js';
import { withTransportSettings } from '../config/transport-settings.js';
import { checkClientTokens, importClientsAtStart } from '../router/client-token-import.js';
import { deliverySettings } from '../router/delivery/delivery-settings.js';
import { DeliveryWorker } from '../router/delivery/delivery-worker.js';
import { WebhookSender } from '../router/delivery/webhook-sender.js';
import { RouterRedisRequiredError } from '../router/errors/router-redis-required.error.js';
import { createRouterApi, type RouterApi } from '../router/http/router-api.js';
import { RouterMetrics } from '../router/router-metrics.js';
import { isRouterRole, ROUTER_ROLES, type RouterOptions, type RouterRole } from '../router/router-options.js';
import type { RouterStores } from '../router/router-stores.js';
import { RouterUpkeep } from '../router/upkeep/router-upkeep.js';
import { upkeepSettings } from '../router/upkeep/upkeep-settings.js';
import { defaultLogger } from '../support/default-logger.js';
import type { Logger } from '../support/logger.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import { adapterValue } from './adapter-value.js';
import { busNameOf } from './bus-name.js';
import { RouterStoresUnsupportedError } from './errors/router-stores-unsupported.error.js';
import type { TransportAdapter } from './transport.js';

/** A router started by {@link startRouter}. */
export interface RunningRouter {
  /** The API's base URL (`https://127.0.0.1:8080`), when this process serves the API. */
  readonly url: string | undefined;
  /** The roles this process runs. */
  readonly roles: readonly RouterRole[];
  /** Its Prometheus metrics (served at `/metrics` by the API role). */
  readonly metrics: RouterMetrics;
  /** The stores it uses. */
  readonly stores: RouterStores;
  /**
   * Stops gracefully: the API stops taking requests and answers those in
   * flight, delivery workers stop taking batches and finish the ones under
   * way, then the upkeep loops and connections end.
   */
  close(): Promise<void>;
}

/** What {@link startRouter} may be given besides options. */
export interface StartRouterDeps {
  /** @defaultValue the console */
  readonly logger?: Logger;
  /**
   * Stores to use instead of ones made from `config` (e.g. a bus's, in one
   * process); they are not closed by the router. Given, `transport` is not
   * used.
   */
  readonly stores?: RouterStores;
  /**
   * Where the router keeps its records when not given `stores`: an adapter
   * that can hold them (`redisTransport()` from `commitbus/redis`, which
   * takes its Redis from `config` unless given one). An adapter without
   * `routerStores` (SQL, SQLite) is refused (`RouterStoresUnsupportedError`);
   * one whose `inProcess` is true is warned about (its records are lost when it stops).
   */
  readonly transport?: Pick<TransportAdapter, 'name' | 'settings' | 'inProcess' | 'routerStores'>;
}

/**
 * The router's stores (`deps.stores`, or ones made from `config`), checked,
 * with the client tokens imported when this process serves the API; stores
 * it made are closed again when that fails.
 */
async function openStores(
  config: CommitbusOptions,
  clients: RouterOptions['clients'],
  servesApi: boolean,
  deps: StartRouterDeps,
  logger: Logger,
): Promise<{ stores: RouterStores; stopImport: () => void }> {
  const stores = deps.stores ?? storesFor(config, deps, logger);
  try {
    await checkStore(stores, logger);
    const stopImport = servesApi
      ? await importClientsAtStart(clients ?? [], stores, logger, { answerWithinMs: STORE_ANSWER_MS })
      : () => undefined;
    return { stores, stopImport };
  } catch (error) {
    if (deps.stores === undefined) await stores.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Starts the HTTP event router: the Routemaster-compatible API, delivery
 * workers and the upkeep loops (promotion of due batches, recovery of dead
 * workers' batches, autodrop), or the subset `options.roles` names. Its
 * records live where `deps.transport` keeps them (`redisTransport()`, on the
 * Redis `config` names: the bus's `redis` options and `name`, as given or
 * as `bus.config`, `loadConfigFromEnv` or `loadRouterConfigFromEnv` return
 * them). With neither `deps.transport` nor `deps.stores` (a bus's
 * `bus.router`) it throws `RouterRedisRequiredError`.
 */
export async function startRouter(
  config: CommitbusOptions = {},
  options: RouterOptions = {},
  deps: StartRouterDeps = {},
): Promise<RunningRouter> {
  const logger = deps.logger ?? defaultLogger({ bus: busNameOf(config) });
  const roles = checkRoles(options.roles);
  const has = (role: RouterRole) => roles.includes(role);
  const rootKey = checkApiOptions(options, has('api'));
  const timeouts = senderTimeouts(options);
  const delivery = deliverySettings(options.delivery, timeouts);
  const upkeep = upkeepSettings(options.upkeep);
  const { stores, stopImport } = await openStores(config, options.clients, has('api'), deps, logger);
  const sender = new WebhookSender(options.sender);
  const metrics = new RouterMetrics().watchQueues(stores.batches);

  const worker = has('delivery')
    ? new DeliveryWorker({
        batches: stores.batches,
        subscribers: stores.subscribers,
        attempts: stores.attempts,
        deadLetters: stores.deadLetters,
        sender,
        settings: delivery,
        metrics,
        logger,
      }).start()
    : undefined;
  const loops = has('upkeep')
    ? new RouterUpkeep({ batches: stores.batches, settings: upkeep, metrics, logger }).start()
    : undefined;
  let api: RouterApi | undefined;
  let url: string | undefined;
  try {
    if (has('api')) {
      api = createRouterApi(
        {
          ...stores,
          logger,
          ping: () => stores.ping(),
          isUnavailable: (error) => stores.isUnavailable(error),
          onPublished: (topic, count) => metrics.onPublished(topic, count),
          metrics: metrics.registry,
        },
        { ...options.api, rootKey: rootKey as string },
      );
      url = await listenOrExplain(api, options);
    }
  } catch (error) {
    stopImport();
    await Promise.allSettled([worker?.close(), loops?.close()]);
    await sender.close();
    if (deps.stores === undefined) await stores.close();
    throw error;
  }
  logger.info({ roles, url }, 'router started');

  let closing: Promise<void> | undefined;
  return {
    url,
    roles,
    metrics,
    stores,
    close: () => {
      closing ??= (async () => {
        stopImport();
        await api?.close();
        await worker?.close();
        await loops?.close();
        await sender.close();
        if (deps.stores === undefined) await stores.close();
        logger.info({ roles }, 'router stopped');
      })();
      return closing;
    },
  };
}

// The root key the API needs (`undefined` without the API role), and the client tokens to import.
function checkApiOptions(options: RouterOptions, servesApi: boolean): string | undefined {
  const rootKey = options.api?.rootKey;
  if (servesApi && (rootKey === undefined || rootKey.trim() === '')) {
    throw new ConfigError(
      'the router API needs a root key to manage API tokens: set ROUTER_ROOT_KEY (or ROUTEMASTER_ROOT_KEY), or options.api.rootKey',
    );
  }
  checkClientTokens(options.clients ?? [], 'clients (ROUTER_CLIENTS or ROUTEMASTER_CLIENTS)', rootKey);
  return rootKey;
}

// The sender's connect + request timeouts, each checked to fit a Node timer (a longer one fires at once,
// failing every delivery).
function senderTimeouts(options: RouterOptions): number {
  const given = {
    connectTimeoutMs: 'ROUTER_CONNECT_TIMEOUT_MS',
    requestTimeoutMs: 'ROUTER_REQUEST_TIMEOUT_MS',
  };
  for (const [key, variable] of Object.entries(given)) {
    const value = options.sender?.[key as keyof typeof given];
    if (value !== undefined && (!Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS)) {
      throw new ConfigError(
        `the router's sender.${key} (${variable}) must be an integer from 1 to ${MAX_TIMER_MS} ms (the longest a Node timer waits), got ${value}`,
      );
    }
  }
  return (options.sender?.connectTimeoutMs ?? 2_000) + (options.sender?.requestTimeoutMs ?? 20_000);
}

// The router's own stores, on `deps.transport`: a router names where its records live, it never falls back to memory.
function storesFor(config: CommitbusOptions, deps: StartRouterDeps, logger: Logger): RouterStores {
  const resolved = resolveOptions(config, warnDeprecatedOptions(logger));
  if (deps.transport === undefined) throw new RouterRedisRequiredError('options');
  const adapter = adapterValue<NonNullable<StartRouterDeps['transport']>>(
    deps.transport,
    'startRouter(config, options, { transport })',
    'routerStores',
  );
  if (adapter.routerStores === undefined) throw new RouterStoresUnsupportedError(adapter.name);
  if (adapter.inProcess === true) {
    logger.warn(
      {},
      `router: transport '${adapter.name}' keeps tokens, subscribers and queued events in this process only; they are lost when it stops (tests, development)`,
    );
  }
  return adapter.routerStores({ config: withTransportSettings(resolved, adapter.settings), logger }, {});
}

/**
 * How long a router's start waits for its store's first answer (and for the
 * listed client tokens' import): a Redis that accepts connections and answers
 * nothing (frozen, overloaded) would otherwise hold the start without end.
 */
const STORE_ANSWER_MS = 5_000;

// Credentials Redis refuses will not start working by waiting: stop with what to fix. Any other failure
// (Redis not up yet, or no answer within STORE_ANSWER_MS) is logged, and the router starts and waits for it.
async function checkStore(stores: RouterStores, logger: Logger): Promise<void> {
  let message: string;
  try {
    const answer = await readWithin(() => stores.ping(), STORE_ANSWER_MS);
    if (answer !== NO_ANSWER) return;
    message = `no answer within ${STORE_ANSWER_MS} ms`;
  } catch (error) {
    message = error instanceof Error ? error.message : String(error);
    if (/WRONGPASS|NOAUTH|NOPERM|invalid (username-)?password/i.test(message)) {
      throw new ConfigError(
        `Redis refused the router's credentials (${message.split('\n')[0]}): fix the user or password in REDIS_URL or REDIS_CLUSTER_NODES`,
      );
    }
  }
  logger.warn(
    { error: message },
    'router: its store does not answer yet; the router starts and waits for it',
  );
}

async function listenOrExplain(api: RouterApi, options: RouterOptions): Promise<string> {
  const port = options.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`the router's port (ROUTER_PORT or --port) must be 0..65535, got ${port}`);
  }
  try {
    return await api.listen({ host: options.host ?? '127.0.0.1', port });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/PEM|key values mismatch|certificate|asn1/i.test(message)) {
      throw new ConfigError(
        `the router's TLS key or certificate (ROUTER_TLS_KEY_FILE, ROUTER_TLS_CERT_FILE) cannot be used: ${message}`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** `roles` as given, or every role; a `ConfigError` for an empty list or a role that is none of them. */
function checkRoles(roles: readonly RouterRole[] | undefined): readonly RouterRole[] {
  if (roles === undefined) return ROUTER_ROLES;
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every(isRouterRole)) {
    throw new ConfigError(
      `startRouter options.roles lists one or more of ${ROUTER_ROLES.join(', ')}, got ${JSON.stringify(roles)}: a router with no role does nothing`,
    );
  }
  return roles;
}
