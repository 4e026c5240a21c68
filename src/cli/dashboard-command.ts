import type { Command } from 'commander';
import { startDashboard } from '../dashboard/start-dashboard.js';
import { CliError } from './errors/cli.error.js';
import { portInUseOr, portOption } from './port-option.js';
import { listenForStopSignals } from './stop-signals.js';
import { withSharedBus } from './with-bus.js';

/** The flags of `commitbus dashboard`. */
interface DashboardFlags {
  readonly port: string;
  readonly host: string;
  readonly basePath?: string;
  readonly allowedHost?: string[];
  readonly refreshMs?: string;
  readonly bullBoardWritable?: boolean;
  readonly router?: boolean;
}

const DEFAULT_PORT = '3100';

/**
 * Adds `commitbus dashboard`: serves the operations dashboard (see README
 * "Dashboard") for the bus module's bus and event store until SIGTERM or
 * SIGINT; with `--router`, the router's stores of the bus (`bus.router`)
 * too, for the router page. Basic-auth credentials come from `COMMITBUS_DASHBOARD_USER` and
 * `COMMITBUS_DASHBOARD_PASSWORD` (never a flag: flags show in `ps`).
 */
export function addDashboardCommand(program: Command): Command {
  return program
    .command('dashboard')
    .description('serve the operations dashboard (and bull-board on Redis) until SIGTERM or SIGINT')
    .option('--port <port>', 'port to listen on (0: any free port)', DEFAULT_PORT)
    .option('--host <host>', 'address to bind (keep it on loopback unless auth is set)', '127.0.0.1')
    .option('--base-path <path>', 'serve under this path, e.g. /ops')
    .option(
      '--router',
      "show the router's topics, subscribers and delivery attempts (its stores on the bus's Redis)",
    )
    .option(
      '--allowed-host <name...>',
      'host names the page may be reached by besides the bound one (behind a proxy)',
    )
    .option('--refresh-ms <ms>', 'how often the page updates itself (default 5000)')
    .option(
      '--bull-board-writable',
      'let bull-board pause, retry, clean and remove jobs (dangerous: it goes around commitbus); read-only if left out',
    )
    .action(async (flags: DashboardFlags, command: Command) => {
      // Before the module loads: a signal that comes while it does stops the dashboard once it serves.
      const signals = listenForStopSignals(() => process.exit(1));
      try {
        await serve(flags, command, signals.received);
      } finally {
        signals.dispose();
      }
    });
}

/** Serves the dashboard on the module's bus until `stopped` resolves. */
function serve(flags: DashboardFlags, command: Command, stopped: Promise<unknown>): Promise<void> {
  const port = portOption('--port', flags.port);
  const auth = basicAuthFromEnv(process.env);
  return withSharedBus(command, async ({ loaded }) => {
    const dashboard = await startDashboard({
      bus: loaded.bus,
      ...(loaded.eventStore === undefined ? {} : { eventStore: loaded.eventStore }),
      // bus.router throws RouterStoresUnsupportedError (coded) on a transport without the router's stores.
      ...(flags.router === true ? { router: loaded.bus.router } : {}),
      port,
      host: flags.host,
      ...(flags.basePath === undefined ? {} : { basePath: flags.basePath }),
      ...(flags.allowedHost === undefined ? {} : { allowedHosts: flags.allowedHost }),
      ...(flags.refreshMs === undefined ? {} : { refreshMs: Number(flags.refreshMs) }),
      ...(flags.bullBoardWritable === true ? { bullBoard: { readOnly: false } } : {}),
      ...auth,
    }).catch((error: unknown) => {
      throw portInUseOr(error, '--port', flags.host, port);
    });
    const warning = exposureWarning(flags.host, auth.basicAuth !== undefined);
    if (warning !== undefined) process.stderr.write(`commitbus dashboard: warning: ${warning}\n`);
    console.log(`commitbus dashboard: ${dashboard.url}`);
    await stopped;
    await dashboard.close();
  });
}

/**
 * The warning for a dashboard reachable from other hosts with no password:
 * bound to an address other than loopback (`127.0.0.0/8`, `::1`,
 * `localhost`) without `COMMITBUS_DASHBOARD_USER` and `..._PASSWORD`.
 */
export function exposureWarning(host: string, withAuth: boolean): string | undefined {
  if (withAuth || isLoopback(host)) return undefined;
  return `listening on ${host}, which other hosts may reach, with no authentication: anyone who reaches it can re-drive and purge dead letters; set COMMITBUS_DASHBOARD_USER and COMMITBUS_DASHBOARD_PASSWORD, or bind 127.0.0.1`;
}

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) ||
    /^::ffff:127\./.test(bare)
  );
}

function basicAuthFromEnv(env: NodeJS.ProcessEnv): { basicAuth?: { username: string; password: string } } {
  const username = env.COMMITBUS_DASHBOARD_USER;
  const password = env.COMMITBUS_DASHBOARD_PASSWORD;
  if (username === undefined && password === undefined) return {};
  if (!username || !password) {
    throw new CliError('set both COMMITBUS_DASHBOARD_USER and COMMITBUS_DASHBOARD_PASSWORD, or neither');
  }
  return { basicAuth: { username, password } };
}
