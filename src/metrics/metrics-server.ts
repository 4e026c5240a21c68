import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../config/errors/config.error.js';
import { describeError, type Logger } from '../support/logger.js';
import { MetricsServerError } from './errors/metrics-server.error.js';
import type { MetricsRegistry } from './metrics-registry.js';

/** Where a worker serves its metrics (`startWorker({ metrics })`). */
export interface MetricsServerOptions {
  /** The port to listen on; `0` takes a free one (read it from `worker.metrics.port`). */
  readonly port: number;
  /**
   * The address to listen on; `'0.0.0.0'` for a scraper on another host.
   * @defaultValue `'127.0.0.1'`
   */
  readonly host?: string;
  /**
   * The registry to serve (one your `createBusMetrics(bus, { registry })` filled).
   * @defaultValue the bus's own metrics, built (with prom-client, loaded then) by its first worker that serves them
   */
  readonly registry?: MetricsRegistry;
}

/** Where a metrics server listens. */
export interface MetricsAddress {
  /** The address it listens on. */
  readonly host: string;
  /** The port it listens on (the one it took, for port `0`). */
  readonly port: number;
  /** The URL to scrape: `http://<host>:<port>/metrics`. */
  readonly url: string;
}

/**
 * What a metrics server's `/readyz` asks: resolves to `undefined` when the
 * process is ready for work, or to why not (`the transport cannot be
 * reached: ...`). A probe that rejects is read as not ready, its message the reason.
 */
export type ReadinessProbe = () => Promise<string | undefined>;

/** A running metrics server. */
export interface MetricsServer extends MetricsAddress {
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * Serves `registry` in the Prometheus text format at `GET /metrics`, and two
 * probes as JSON (a plain `node:http` server; every other path is a 404):
 * `GET /healthz`, 200 while the process serves; `GET /readyz`, 200 when
 * `ready` finds nothing wrong, else 503 with `{ status: 'not ready', reason }`
 * (200 without a probe). Rejects with {@link MetricsServerError} when it cannot listen.
 */
export async function serveMetrics(
  registry: MetricsRegistry,
  options: Pick<MetricsServerOptions, 'port' | 'host'>,
  logger: Logger,
  ready?: ReadinessProbe,
): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  checkServed(registry, options.port);
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const readable = request.method === 'GET' || request.method === 'HEAD';
    if (readable && (path === '/healthz' || path === '/readyz')) {
      void answerProbe(path === '/readyz' ? ready : undefined, request.method === 'HEAD', response);
      return;
    }
    if (path !== '/metrics' || !readable) {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: scrape GET /metrics, probe GET /healthz or /readyz\n');
      return;
    }
    // A registry that throws, rejects or hands back no text fails the scrape (500), never the worker's process.
    const failed = (problem: string) => {
      logger.warn({ error: problem }, 'metrics could not be collected for a scrape');
      if (response.headersSent) response.destroy();
      else response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
    };
    Promise.resolve()
      .then(() => registry.metrics())
      .then((text: unknown) => {
        if (typeof text !== 'string') return failed(`the registry's metrics() gave ${typeof text}, not text`);
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      })
      .catch((error: unknown) => failed(describeError(error).message));
  });
  await listen(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    host,
    port,
    url: `http://${shown}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers `/healthz` (no probe: the process serves) or `/readyz` (`probe`), as JSON. */
async function answerProbe(
  probe: ReadinessProbe | undefined,
  head: boolean,
  response: ServerResponse,
): Promise<void> {
  const reason =
    probe === undefined
      ? undefined
      : await probe().catch((error: unknown) => describeError(error).message || 'the readiness probe failed');
  const body = reason === undefined ? { status: 'ok' } : { status: 'not ready', reason };
  if (response.destroyed) return;
  response.writeHead(reason === undefined ? 200 : 503, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(head ? undefined : `${JSON.stringify(body)}\n`);
}

/**
 * Refuses, before anything listens, a port Node would not read as a TCP port
 * (a string such as `'abc'` is a pipe's path to it) and a registry the
 * server cannot read (no `metrics()`, or no `contentType`: `createBusMetrics(bus)`
 * given where its `.registry` belongs), which would fail every scrape.
 */
function checkServed(registry: MetricsRegistry, port: unknown): void {
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(
      `startWorker({ metrics: { port } }) must be a whole number from 0 to 65535 (0 for any free port), got ${typeof port === 'string' ? JSON.stringify(port) : String(port)}`,
    );
  }
  const given = registry as Partial<MetricsRegistry> | null | undefined;
  if (typeof given?.metrics !== 'function' || typeof given.contentType !== 'string') {
    throw new ConfigError(
      "startWorker({ metrics: { registry } }) must be a Prometheus registry, with metrics() and contentType (a prom-client Registry, such as createBusMetrics(bus).registry, not createBusMetrics(bus) itself), or left out to serve the bus's own metrics",
    );
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(new MetricsServerError(host, port, error));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
