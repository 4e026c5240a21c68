import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type { EventBus } from '../bus/event-bus.js';
import { ConfigError } from '../config/config-error.js';
import { mountBullBoard } from './bull-board.js';
import { bullmqQueuesOf } from './bullmq-queues.js';
import { registerDashboardApi } from './dashboard-api.js';
import type { DashboardOptions, RunningDashboard } from './dashboard-options.js';
import { readSnapshot, type SnapshotSources } from './dashboard-snapshot.js';
import { renderPage } from './render-page.js';
import { accessHook } from './request-guard.js';

/**
 * Starts the operations dashboard: a page with the bus's backlog, dead
 * letters (re-drive, purge), halted order keys (re-drive, skip), pause and
 * block rules, the router's subscribers and the event store's version and
 * halt, a JSON API under `<basePath>/api`, and bull-board for the BullMQ
 * queues at `<basePath>/queues` (Redis transport; bull-board is an optional
 * peer dependency, loaded only here). Listens on 127.0.0.1 unless told
 * otherwise; actions are POSTs that only the page itself can send.
 *
 * @example
 * ```ts
 * const dashboard = await startDashboard({ bus, port: 3100 });
 * console.log(`dashboard at ${dashboard.url}`);
 * ```
 */
export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const { bus } = options;
  const base = basePathOf(options.basePath ?? '');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`the dashboard's port must be 0..65535, got ${port}`);
  }
  const queues = bullmqQueuesOf(bus);
  const withBullBoard = (options.bullBoard ?? true) && queues.length > 0;
  // No request logging: headers carry credentials.
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024, forceCloseConnections: true });
  try {
    const guard = accessHook(options.basicAuth, options.auth);
    if (guard !== undefined) app.addHook('onRequest', guard);
    app.addHook('onSend', async (_request, reply) => {
      reply.header('x-content-type-options', 'nosniff').header('x-frame-options', 'DENY');
    });
    if (withBullBoard) await mountBullBoard(app, `${base}/queues`, queues);
    const sources: SnapshotSources = {
      bus,
      queues,
      ...(options.router === undefined ? {} : { router: options.router }),
      ...(options.eventStore === undefined ? {} : { eventStore: options.eventStore }),
    };
    registerDashboardApi(app, base, sources);
    const page = async (_request: unknown, reply: import('fastify').FastifyReply) => {
      const nonce = randomBytes(16).toString('base64');
      const snapshot = await readSnapshot(sources);
      return reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
        )
        .header('cache-control', 'no-store')
        .send(renderPage(snapshot, { basePath: base, bullBoard: withBullBoard, nonce }));
    };
    app.get(`${base}/`, page);
    if (base !== '') app.get(base, page);
    await app.listen({ host: options.host ?? '127.0.0.1', port });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const host = options.host ?? '127.0.0.1';
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

function basePathOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) {
    throw new ConfigError(
      `the dashboard's basePath must look like /ops (letters, digits, - . _ ~ /), got ${path}`,
    );
  }
  return trimmed;
}
