import type { Command } from 'commander';
import { type RunningRouter, startRouter } from '../bus/start-router.js';
import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import { redactRedisUrl } from '../config/redis-url.js';
import { loadRouterConfigFromEnv } from '../router/load-router-config-from-env.js';
import { loadRouterOptionsFromEnv, parseRoles } from '../router/load-router-options-from-env.js';
import type { RouterOptions } from '../router/router-options.js';
import { consoleLogger, describeError, type Logger } from '../support/logger.js';
import { transportFromEnv } from '../transports/select/transport-from-env.js';
import { portOption } from './port-option.js';
import { listenForStopSignals } from './stop-signals.js';

/** The flags of `commitbus router`; everything else comes from the environment. */
interface RouterFlags {
  readonly roles?: string;
  readonly host?: string;
  readonly port?: string;
  readonly dev?: boolean;
}

/** The root key `--dev` uses when none is set: for a laptop, never for a deployment. */
const DEV_ROOT_KEY = 'dev-root-key';

/**
 * Adds `commitbus router`: the HTTP event router (API, delivery workers and
 * upkeep, or the roles given) on the Redis the environment names, until
 * SIGTERM or SIGINT, then a graceful stop.
 */
export function addRouterCommand(program: Command, logger: Logger = consoleLogger): Command {
  return program
    .command('router')
    .description(
      'run the HTTP event router (Routemaster-compatible API, webhook delivery, upkeep) on Redis; ' +
        "configured by REDIS_URL / REDIS_CLUSTER_NODES, COMMITBUS_REDIS_PREFIX, COMMITBUS_NAME and ROUTER_* variables, or a Routemaster deployment's ROUTEMASTER_* ones (see README)",
    )
    .option('--roles <roles>', 'roles of this process, among api, delivery, upkeep (env ROUTER_ROLES)')
    .option('--host <host>', 'interface the API listens on (env ROUTER_HOST; default 127.0.0.1)')
    .option('--port <port>', 'port the API listens on (env ROUTER_PORT; default 8080)')
    .option(
      '--dev',
      `development: allow http URLs, use the root key "${DEV_ROOT_KEY}" when ROUTER_ROOT_KEY is not set, and the Redis at redis://127.0.0.1:6379 when no Redis variable is`,
    )
    .action(async (flags: RouterFlags) => {
      await runRouter(flags, logger);
    });
}

async function runRouter(flags: RouterFlags, logger: Logger): Promise<void> {
  // Before the slow start: a signal that comes meanwhile stops the router once it has started, rather than being lost.
  const signals = listenForStopSignals((signal) => {
    logger.warn({ signal }, 'router: second signal, exiting at once');
    process.exit(1);
  });
  let router: RunningRouter;
  try {
    router = await startFromEnv(flags, logger);
  } catch (error) {
    signals.dispose();
    throw error;
  }
  void signals.received.then((signal) => {
    logger.info({ signal }, 'router: stopping (finishing requests and deliveries under way)');
    router.close().then(
      () => {
        console.log('commitbus router: stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ error: describeError(error) }, 'router: failed to stop cleanly');
        process.exit(1);
      },
    );
  });
}

/** Starts the router the environment and `flags` describe, and says so on stdout. */
async function startFromEnv(flags: RouterFlags, logger: Logger): Promise<RunningRouter> {
  const env = process.env;
  const config = loadRouterConfigFromEnv(env, { dev: flags.dev === true, logger });
  let options: RouterOptions = loadRouterOptionsFromEnv(env);
  if (flags.dev === true) {
    if (options.api?.rootKey === undefined) {
      logger.warn({}, `router --dev: ROUTER_ROOT_KEY is not set, so the root key is "${DEV_ROOT_KEY}"`);
    }
    options = {
      ...options,
      api: { rootKey: DEV_ROOT_KEY, ...options.api, allowHttpUrls: options.api?.allowHttpUrls ?? true },
    };
  }
  options = {
    ...options,
    ...(flags.roles !== undefined ? { roles: parseRoles(flags.roles, '--roles') } : {}),
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.port !== undefined ? { port: portOption('--port', flags.port) } : {}),
  };
  // A router's records must outlive it: the shared adapter, never the in-process one; its Redis is the one
  // `config` names (ours, or Routemaster's ROUTEMASTER_REDIS_URL, or --dev's), as the adapter takes it from there.
  const transport = transportFromEnv({ env: { ...env, COMMITBUS_TRANSPORT: 'redis' } });
  const router = await startRouter(config, options, { logger, transport });
  // One line on stdout for people and process managers; the structured logs go to stderr.
  console.log(
    `commitbus router: ${router.roles.join(', ')}${router.url === undefined ? '' : ` at ${router.url}`} (${describeRedis(config)}, prefix {${config.redis.prefix}:${config.name}})`,
  );
  return router;
}

/** `Redis redis://***@host:6379` or `Redis Cluster`, never a password. */
function describeRedis(config: ResolvedCommitbusOptions): string {
  return config.redis.cluster === undefined ? `Redis ${redactRedisUrl(config.redis.url)}` : 'Redis Cluster';
}
