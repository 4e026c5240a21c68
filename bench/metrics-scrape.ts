import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { handlerDeadLetter } from '../src/dead-letters/dead-letter.js';
import {
  COMMITBUS_ENTITIES,
  createEventBus,
  defineHandler,
  Event,
  type EventBus,
  EventType,
  silentLogger,
  type TransportAdapter,
} from '../src/index.js';
import { createBusMetrics } from '../src/metrics/index.js';
import { redisTransport } from '../src/transports/redis/index.js';
import { sqliteTransport, sqlTransport } from '../src/transports/sql/index.js';
import { nowMs } from './load.js';
import { deleteKeys } from './redis-keys.js';
import { adminQuery, dropSchema } from './sql/pg-admin.js';
import { median } from './stats.js';

/** The handlers' event: never published, there so the bus has its 100 handlers at 0 letters too. */
@EventType('BENCH.SCRAPE')
export class ScrapeBenchEvent extends Event {}

// The same 100 handlers at 0 letters and at 100,000: a scrape's size grows with handlers, not letters.
const HANDLERS = Array.from({ length: 100 }, (_, i) =>
  defineHandler<ScrapeBenchEvent>(`handler${i}`, () => {}),
);

// Scrapes of each bus before the measured ones (JIT, scripts loaded, pages cached).
const WARMUP_SCRAPES = 10;

/** How a metrics scrape is measured against the number of dead letters. */
export interface MetricsScrapeOptions {
  redisUrl: string;
  /** The PostgreSQL database; a schema of its own is made in it and dropped at the end. */
  databaseUrl: string;
  /** Redis prefix of its own; every key under it is deleted at the end. */
  prefix: string;
  /** Dead letters stored for the second measurement. */
  letters: number;
  /** Scrapes per measurement (the median is kept). */
  scrapes: number;
}

/** One transport's figures: the median scrape at 0 letters and at `letters`, in ms. */
export interface ScrapeFigures {
  readonly emptyMs: number;
  readonly fullMs: number;
  /** One `bus.deadLetters.list()` of every letter: what each scrape read before the counts. */
  readonly listAllMs: number;
}

/**
 * Times a Prometheus scrape of a bus's metrics (a fresh `createBusMetrics`
 * registry each time, so no scrape reuses another's `status()` read) at no
 * dead letters and at `letters` (two buses with the same 100 handlers,
 * scraped in turn), on Redis, on SQLite in memory and on PostgreSQL.
 */
export async function measureMetricsScrape(
  options: MetricsScrapeOptions,
): Promise<Record<string, ScrapeFigures>> {
  const redis = new Redis(options.redisUrl);
  const schema = options.prefix.replace(/[^a-z0-9]/gi, '_').toLowerCase();
  await adminQuery(options.databaseUrl, `CREATE SCHEMA ${schema}`);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.databaseUrl,
    schema,
    entities: [...COMMITBUS_ENTITIES],
    synchronize: true,
  });
  try {
    await dataSource.initialize();
    return {
      redis: await measureOn(() => redisTransport({ url: options.redisUrl }), options),
      sqlite: await measureOn(() => sqliteTransport(), options),
      postgres: await measureOn(() => sqlTransport({ dataSource }), options),
    };
  } finally {
    await deleteKeys(redis, options.prefix);
    await redis.quit();
    if (dataSource.isInitialized) await dataSource.destroy();
    await dropSchema(options.databaseUrl, schema);
  }
}

async function measureOn(
  transport: () => TransportAdapter,
  options: MetricsScrapeOptions,
): Promise<ScrapeFigures> {
  const open = (name: string) =>
    createEventBus({
      events: [ScrapeBenchEvent],
      handlers: { 'BENCH.SCRAPE': HANDLERS.map((h) => [h, false] as const) },
      logger: silentLogger,
      transport: transport(),
      config: {
        name,
        redis: { prefix: options.prefix },
        outbox: { enabled: false },
        deadLetters: { maxCount: 0, maxAgeMs: 0 },
      },
    });
  // Two buses side by side, scraped in turn, so warm-up and load from elsewhere fall on both alike.
  const [empty, full] = [open('scrape-empty'), open('scrape-full')];
  try {
    await storeLetters(full, options.letters);
    for (let i = 0; i < WARMUP_SCRAPES; i++) await Promise.all([scrape(empty), scrape(full)]);
    const [emptyTimes, fullTimes]: [number[], number[]] = [[], []];
    for (let i = 0; i < options.scrapes; i++) {
      const [first, second] = i % 2 === 0 ? [empty, full] : [full, empty];
      const a = await scrape(first);
      const b = await scrape(second);
      emptyTimes.push(first === empty ? a : b);
      fullTimes.push(first === empty ? b : a);
    }
    const started = nowMs();
    await full.deadLetters.list();
    return { emptyMs: median(emptyTimes), fullMs: median(fullTimes), listAllMs: nowMs() - started };
  } finally {
    // The letters go with the prefix's keys (Redis) or the database (SQLite in memory).
    await Promise.all([empty.close(), full.close()]);
  }
}

async function scrape(bus: EventBus): Promise<number> {
  const metrics = createBusMetrics(bus, { registry: new Registry() });
  const started = nowMs();
  const text = await metrics.metrics();
  const took = nowMs() - started;
  if (!text.includes('commitbus_dead_letters_stored')) throw new Error('the scrape has no dead-letter gauge');
  return took;
}

// 100 handlers, 2 reasons: 200 groups, as a bus with many handlers would have.
async function storeLetters(bus: EventBus, count: number): Promise<void> {
  const at = new Date();
  for (let from = 0; from < count; from += 1_000) {
    const letters = Array.from({ length: Math.min(1_000, count - from) }, (_, i) =>
      handlerDeadLetter(
        JSON.stringify({ id: `e${from + i}`, handlingKey: 'BENCH.SCRAPE', data: { n: from + i } }),
        `handler${(from + i) % 100}`,
        (from + i) % 2 === 0 ? 'exhausted' : 'timeout',
        [{ attempt: 1, at, error: 'down', name: 'Error', stack: 'Error: down\n    at bench' }],
        at,
      ),
    );
    await bus.transport.deadLetters.add(letters);
  }
}
