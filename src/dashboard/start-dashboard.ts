import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type { EventBus } from '../bus/event-bus.js';
import { ConfigError } from '../config/errors/config.error.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import { BULL_BOARD_MODULES, type BullBoardModules, mountBullBoard } from './bull-board.js';
import { bullmqQueuesOf } from './bullmq-queues.js';
import { registerDashboardApi } from './dashboard-api.js';
import { registerAssets } from './dashboard-assets.js';
import type { DashboardOptions, RunningDashboard } from './dashboard-options.js';
import { readSnapshot, type SnapshotSources } from './dashboard-snapshot.js';
import { BullBoardMissingError } from './errors/bull-board-missing.error.js';
import { registerHistoryApi } from './history-api.js';
import { registerOperationsPages } from './operations-pages.js';
import { sendPage } from './page-frame.js';
import { renderPage } from './render-page.js';
import { accessHook, crossSiteGuard, hostGuard } from './request-guard.js';

/** How long a read of the page waits for each part unless `readTimeoutMs` says. */
const DEFAULT_READ_TIMEOUT_MS = 5_000;
/** How often the page reads the bus again unless `refreshMs` says. */
const DEFAULT_REFRESH_MS = 5_000;

/**
 * Starts the operations dashboard: a page that updates itself every
 * `refreshMs` with what needs attention, the bus's backlog, history charts,
 * workers, dead letters (re-drive, purge), halted order keys (re-drive,
 * skip), pause and block rules, the router's subscribers, the event store's
 * version and halt, and the audit trail; a JSON API under `<basePath>/api`;
 * and bull-board, read-only unless told, for the BullMQ queues at
 * `<basePath>/queues` (Redis transport; bull-board is an optional peer
 * dependency, loaded only here). Listens on 127.0.0.1 unless told
 * otherwise, answers only to its own host names (`allowedHosts`), and takes
 * no action (a POST, or bull-board's PUTs) that another site's page sent.
 *
 * @example
 * ```ts
 * const dashboard = await startDashboard({ bus, port: 3100 });
 * console.log(`dashboard at ${dashboard.url}`);
 * ```
 */
export function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  return startDashboardWith(options, BULL_BOARD_MODULES);
}

/** {@link startDashboard}, loading bull-board from `modules` (a test names missing ones). */
export async function startDashboardWith(
  options: DashboardOptions,
  modules: BullBoardModules,
): Promise<RunningDashboard> {
  const { bus } = options;
  const base = basePathOf(options.basePath ?? '');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`the dashboard's port must be 0..65535, got ${port}`);
  }
  const host = options.host ?? '127.0.0.1';
  const readTimeoutMs = timerOption('readTimeoutMs', options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  const refreshMs = timerOption('refreshMs', options.refreshMs ?? DEFAULT_REFRESH_MS, MIN_REFRESH_MS);
  const board = bullBoardMode(options.bullBoard);
  const queues = bullmqQueuesOf(bus);
  // No request logging: headers carry credentials.
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024, forceCloseConnections: true });
  let withBullBoard = false;
  let bullBoardNote: string | undefined;
  try {
    app.addHook('onRequest', hostGuard(host, options.allowedHosts ?? []));
    const guard = accessHook(options.basicAuth, options.auth);
    if (guard !== undefined) app.addHook('onRequest', guard);
    app.addHook('onRequest', crossSiteGuard(options.allowedOrigins ?? []));
    app.addHook('onSend', async (_request, reply) => {
      reply.header('x-content-type-options', 'nosniff').header('x-frame-options', 'DENY');
    });
    if (board.mount && queues.length > 0) {
      try {
        await mountBullBoard(app, `${base}/queues`, queues, board.readOnly, modules);
        withBullBoard = true;
      } catch (error) {
        if (board.required || !(error instanceof BullBoardMissingError)) throw error;
        bullBoardNote = 'npm install @bull-board/api @bull-board/fastify to see the BullMQ queues';
      }
    }
    const sources: SnapshotSources = {
      bus,
      queues,
      readTimeoutMs,
      basicChecked: options.basicAuth !== undefined,
      ...(options.router === undefined ? {} : { router: options.router }),
      ...(options.eventStore === undefined ? {} : { eventStore: options.eventStore }),
    };
    registerDashboardApi(app, base, sources);
    registerHistoryApi(app, base, sources);
    registerAssets(app, base);
    registerOperationsPages(app, base, sources);
    const context = {
      basePath: base,
      refreshMs,
      bullBoard: withBullBoard,
      bullBoardReadOnly: board.readOnly,
      ...(bullBoardNote === undefined ? {} : { bullBoardNote }),
    };
    const page = async (_request: unknown, reply: import('fastify').FastifyReply) => {
      const nonce = randomBytes(16).toString('base64');
      const snapshot = await readSnapshot(sources);
      return sendPage(reply, nonce, renderPage(snapshot, { ...context, nonce }));
    };
    app.get(`${base}/`, page);
    if (base !== '') app.get(base, page);
    await app.listen({ host, port });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${bound}${base}`,
    close: () => {
      closing ??= app.close();
      return closing;
    },
  };
}

/**
 * What `commitbus dashboard` runs: {@link startDashboard} on a bus the
 * command loaded, with the rest of the options.
 */
export function dashboardFor(
  bus: EventBus,
  options: Omit<DashboardOptions, 'bus'> = {},
): Promise<RunningDashboard> {
  return startDashboard({ ...options, bus });
}

// Each open page reads the bus's state at every refresh: faster than this, a few tabs would load it for nothing.
const MIN_REFRESH_MS = 100;

function timerOption(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min || value > MAX_TIMER_MS) {
    throw new ConfigError(
      `the dashboard's ${name} must be an integer from ${min} to ${MAX_TIMER_MS}, got ${value}`,
    );
  }
  return value;
}

// `true`: mounted or fail; `false`: never; unset or an object: mounted when installed. Read-only unless told.
function bullBoardMode(option: DashboardOptions['bullBoard']): {
  mount: boolean;
  required: boolean;
  readOnly: boolean;
} {
  const readOnly = typeof option === 'object' ? option.readOnly !== false : true;
  return { mount: option !== false, required: option === true, readOnly };
}

function basePathOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const segments = trimmed.split('/').slice(1);
  const dotted = segments.some((segment) => segment === '' || segment === '.' || segment === '..');
  if (trimmed !== '' && (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed) || dotted)) {
    throw new ConfigError(
      `the dashboard's basePath must look like /ops (letters, digits, - . _ ~ /; no empty, . or .. segments), got ${path}`,
    );
  }
  return trimmed;
}
