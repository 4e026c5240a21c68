import { type ChildProcess, spawn } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { Pool, request } from 'undici';
import { percentile } from './stats.js';

/** What {@link measureRouter} is asked to do. */
export interface RouterBenchOptions {
  readonly redisUrl: string;
  /** Key prefix of the router (its COMMITBUS_PREFIX) and of the raw peer's list. */
  readonly prefix: string;
  /** Events published per ingest run (and delivered per delivery run). */
  readonly events: number;
  /** Requests in flight during ingest (over `connections` keep-alive connections). */
  readonly inFlight: number;
  readonly connections: number;
  /** Runs per side, alternating. */
  readonly runs: number;
  /** Open-loop rate and duration of the latency run. */
  readonly latencyRatePerS: number;
  readonly latencyDurationMs: number;
  readonly onRun?: (line: string) => void;
}

/** Per-run figures of the router and its peers. */
export interface RouterBenchResult {
  readonly ingestPerS: number[];
  readonly rawIngestPerS: number[];
  readonly deliveredPerS: number[];
  readonly rawDeliveredPerS: number[];
  readonly latenciesMs: number[];
}

const ROOT_KEY = 'bench-root-key';
const auth = (user: string) => `Basic ${Buffer.from(`${user}:x`).toString('base64')}`;

/**
 * The router (`commitbus router` in a child process, on Redis) against its
 * peers: ingest against a bare Fastify + LPUSH server (also a child), delivery
 * of a backlog (batches of 100 to a local subscriber answering 204) against
 * raw undici POSTs of the same batches, and publish-to-delivery latency with
 * `timeout` 0.
 */
export async function measureRouter(options: RouterBenchOptions): Promise<RouterBenchResult> {
  const log = options.onRun ?? (() => {});
  const subscriber = await startSubscriber();
  const [routerPort, rawPort] = [await freePort(), await freePort()];
  const router = spawnChild('src/cli/commitbus.ts', ['router', '--dev', '--port', String(routerPort)], {
    REDIS_URL: options.redisUrl,
    COMMITBUS_PREFIX: options.prefix,
    ROUTER_ROOT_KEY: ROOT_KEY,
  });
  const raw = spawnChild('bench/raw-ingest-server.ts', [], {
    REDIS_URL: options.redisUrl,
    KEY: `${options.prefix}:raw-ingest`,
    PORT: String(rawPort),
  });
  const routerUrl = `http://127.0.0.1:${routerPort}`;
  const rawUrl = `http://127.0.0.1:${rawPort}`;
  const routerPool = new Pool(routerUrl, { connections: options.connections });
  const rawPool = new Pool(rawUrl, { connections: options.connections });
  const result: RouterBenchResult = {
    ingestPerS: [],
    rawIngestPerS: [],
    deliveredPerS: [],
    rawDeliveredPerS: [],
    latenciesMs: [],
  };
  try {
    await Promise.all([waitForPulse(routerUrl), waitForPulse(rawUrl)]);
    const tokens = await call(routerPool, 'POST', '/api_tokens', ROOT_KEY, {
      name: 'bench',
      token: 'bench-token',
    });
    if (tokens.status !== 201) throw new Error(`creating the bench token answered ${tokens.status}`);
    const subscribe = (timeout: number) =>
      call(routerPool, 'POST', '/subscription', 'bench-token', {
        topics: ['bench'],
        callback: `${subscriber.url}/hook`,
        uuid: 'bench-subscriber',
        max: 100,
        timeout,
      });
    // Batches fill to 100 while the subscriber is paused (the deadline is far off).
    await subscribe(60_000);

    for (let run = 1; run <= options.runs; run++) {
      // Ingest, with deliveries paused, so the router's process only ingests.
      await call(routerPool, 'POST', '/subscriber/pause', 'bench-token');
      const ingest = await publishAll(routerPool, options.events, options.inFlight);
      result.ingestPerS.push(ingest);
      const rawIngest = await publishAll(rawPool, options.events, options.inFlight);
      result.rawIngestPerS.push(rawIngest);
      // Delivery of the backlog the ingest left: batches of 100.
      subscriber.reset();
      const started = performance.now();
      await call(routerPool, 'POST', '/subscriber/resume', 'bench-token');
      await subscriber.received(options.events);
      const delivered = options.events / ((performance.now() - started) / 1000);
      result.deliveredPerS.push(delivered);
      const rawDelivered = await postBatches(subscriber, options.events, 64);
      result.rawDeliveredPerS.push(rawDelivered);
      log(
        `run ${run}: ingest router ${Math.round(ingest)}/s, raw ${Math.round(rawIngest)}/s; ` +
          `delivery router ${Math.round(delivered)} events/s, raw ${Math.round(rawDelivered)} events/s`,
      );
    }

    // Latency: one event at a time at a steady rate, timeout 0 (each event its own batch when idle).
    await subscribe(0);
    subscriber.reset();
    const sentAt = new Map<number, number>();
    const total = Math.round((options.latencyRatePerS * options.latencyDurationMs) / 1000);
    const gap = 1000 / options.latencyRatePerS;
    const start = performance.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + i * gap;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sentAt.set(i, performance.now());
      sends.push(publishOne(routerPool, i));
    }
    await Promise.all(sends);
    await subscriber.received(total);
    for (const [i, at] of subscriber.arrivals) {
      const sent = sentAt.get(i);
      if (sent !== undefined) result.latenciesMs.push(at - sent);
    }
    log(
      `latency: ${result.latenciesMs.length} events at ${options.latencyRatePerS}/s, ` +
        `p50 ${percentile(result.latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(result.latenciesMs, 99).toFixed(2)} ms`,
    );
    await call(routerPool, 'DELETE', '/subscriber', 'bench-token');
    return result;
  } finally {
    await Promise.allSettled([routerPool.close(), rawPool.close()]);
    await Promise.allSettled([stopChild(router), stopChild(raw)]);
    await subscriber.close();
  }
}

/** Publishes `count` events with `inFlight` requests outstanding; events per second. */
async function publishAll(pool: Pool, count: number, inFlight: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) await publishOne(pool, next++);
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return count / ((performance.now() - started) / 1000);
}

async function publishOne(pool: Pool, i: number): Promise<void> {
  const response = await call(pool, 'POST', '/topics/bench', 'bench-token', {
    type: 'update',
    url: `https://example.com/records/${i}`,
    timestamp: null,
    data: { i },
  });
  if (response.status !== 200) throw new Error(`publish answered ${response.status}`);
}

async function call(
  pool: Pool,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  user: string,
  body?: unknown,
): Promise<{ status: number }> {
  const response = await pool.request({
    method,
    path,
    headers: {
      authorization: auth(user),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  await response.body.dump();
  return { status: response.statusCode };
}

/** The raw peer of delivery: POSTs the same events in batches of 100 with `inFlight` requests outstanding. */
async function postBatches(subscriber: Subscriber, count: number, inFlight: number): Promise<number> {
  subscriber.reset();
  const pool = new Pool(subscriber.url, { connections: 32 });
  const batch = (from: number) =>
    `[${Array.from({ length: Math.min(100, count - from) }, (_, k) =>
      JSON.stringify({
        topic: 'bench',
        type: 'update',
        url: `https://example.com/records/${from + k}`,
        t: Date.now(),
        data: { i: -1 },
      }),
    ).join(',')}]`;
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const from = next;
      next += 100;
      const response = await pool.request({
        method: 'POST',
        path: '/hook',
        headers: { authorization: auth('bench-subscriber'), 'content-type': 'application/json' },
        body: batch(from),
      });
      await response.body.dump();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  await subscriber.received(count);
  const perS = count / ((performance.now() - started) / 1000);
  await pool.close();
  return perS;
}

/** A local subscriber answering 204, counting the events it receives and when. */
interface Subscriber {
  readonly url: string;
  readonly arrivals: Map<number, number>;
  reset(): void;
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startSubscriber(): Promise<Subscriber> {
  let count = 0;
  const arrivals = new Map<number, number>();
  let waiter: { count: number; resolve: () => void } | undefined;
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const events = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { i: number } }[];
      for (const event of events) {
        const i = event.data?.i;
        if (i !== undefined && i >= 0) arrivals.set(i, at);
      }
      count += events.length;
      res.writeHead(204).end();
      if (waiter !== undefined && count >= waiter.count) waiter.resolve();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    reset: () => {
      count = 0;
      arrivals.clear();
    },
    received: (wanted) =>
      count >= wanted
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`the subscriber got ${count} of ${wanted} events in 120 s`)),
              120_000,
            );
            waiter = {
              count: wanted,
              resolve: () => {
                clearTimeout(timer);
                waiter = undefined;
                resolve();
              },
            };
          }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function spawnChild(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

async function waitForPulse(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await request(`${url}/pulse`, { headers: { authorization: auth(ROOT_KEY) } });
      await response.body.dump();
      if (response.statusCode === 204) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer /pulse within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
