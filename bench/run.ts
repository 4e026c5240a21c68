import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { BenchSetupError } from './bench-setup.error.js';
import { CommitbusSide } from './commitbus-side.js';
import { compareEventStore } from './event-store-compare.js';
import { compareSqliteLone } from './event-store-sqlite-compare.js';
import { type BenchTarget, measureLatency, measureThroughput } from './load.js';
import { compareScrape } from './metrics-scrape-report.js';
import { measureOrderingThroughput } from './ordering-throughput.js';
import { measureOutboxCost, type OutboxCost } from './outbox-cost.js';
import { RawBullmqSide } from './raw-bullmq-side.js';
import { deleteKeys } from './redis-keys.js';
import { measureRouter } from './router-throughput.js';
import { assertReachable } from './sql/pg-admin.js';
import { compareSql } from './sql/sql-bench.js';
import { median, percentile, round, table } from './stats.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const WARMUP_EVENTS = Math.max(1_000, Math.round(EVENTS / 4));
const RUNS = 3;
const IN_FLIGHT = 50;
const LATENCY_RATE_PER_S = 500;
const LATENCY_DURATION_MS = 5_000;
// Latency is measured in alternating rounds and pooled, so a burst of load
// from elsewhere on the machine does not land on one side only.
const LATENCY_ROUNDS = 2;
// Ordering: events per run of the unordered and 1,000-key cases, of the one-key
// case (one event per round trip), keys, and runs per case (rotating order).
const ORDERING_EVENTS = Number(process.env.BENCH_ORDERING_EVENTS ?? 20_000);
const HOT_KEY_EVENTS = Number(process.env.BENCH_HOT_KEY_EVENTS ?? 5_000);
const ORDERING_KEYS = 1_000;
const ORDERING_RUNS = Number(process.env.BENCH_ORDERING_RUNS ?? 5);
const ORDERING_WARMUP = Math.max(1_000, Math.round(ORDERING_EVENTS / 4));
// Outbox cost: units of work per run and side, in flight at once, runs per side.
const OUTBOX_UNITS = Number(process.env.BENCH_OUTBOX_UNITS ?? 2_000);
const OUTBOX_CONCURRENCY = 16;
const OUTBOX_RUNS = 4;
// Both sides speed up over their first few thousand units of work (JIT, PostgreSQL caches).
const OUTBOX_WARMUP = 2_000;
// Router: events per ingest/delivery run, requests in flight, keep-alive connections, runs.
const ROUTER_EVENTS = Number(process.env.BENCH_ROUTER_EVENTS ?? 20_000);
const ROUTER_IN_FLIGHT = 64;
const ROUTER_CONNECTIONS = 16;
const ROUTER_RUNS = Number(process.env.BENCH_ROUTER_RUNS ?? 3);

const ms = (value: number) => round(value, 2);
const note = (side: BenchTarget) => {
  const text = side.describeRun?.();
  return text ? ` (${text})` : '';
};

/** commitbus vs raw BullMQ: throughput and latency; prints its table and returns the figures. */
async function compareWithRawBullmq(prefix: string): Promise<Record<string, number>> {
  console.log(
    `commitbus vs raw BullMQ on ${REDIS_URL}, prefix ${prefix}, load average ${round(loadavg()[0] ?? 0, 2)}\n` +
      `throughput: ${EVENTS} events, ${IN_FLIGHT} sends in flight (commitbus: bus.publish of 10 events; raw: queue.add of 1), ` +
      `warm-up of ${WARMUP_EVENTS}, ${RUNS} runs per side, interleaved\n` +
      `latency: ${LATENCY_RATE_PER_S} events/s open loop, ${LATENCY_ROUNDS} rounds of ${LATENCY_DURATION_MS / 1000} s per side, interleaved and pooled`,
  );
  const admin = new Redis(REDIS_URL);
  const commitbus = new CommitbusSide({ prefix, redisUrl: REDIS_URL });
  const raw = new RawBullmqSide(REDIS_URL, prefix);
  const sides: BenchTarget[] = [commitbus, raw];
  try {
    await Promise.all([commitbus.start(), raw.start()]);
    const throughputs = new Map<BenchTarget, number[]>(sides.map((s) => [s, []]));
    const latencies = new Map<BenchTarget, number[]>(sides.map((s) => [s, []]));
    for (const side of sides) {
      await measureThroughput(side, WARMUP_EVENTS, IN_FLIGHT);
      side.describeRun?.();
    }
    for (let run = 1; run <= RUNS; run++) {
      for (const side of sides) {
        const perS = await measureThroughput(side, EVENTS, IN_FLIGHT);
        throughputs.get(side)?.push(perS);
        console.log(`  run ${run} ${side.label}: ${round(perS)} events/s${note(side)}`);
      }
    }
    for (let r = 1; r <= LATENCY_ROUNDS; r++) {
      for (const side of sides) {
        const lat = await measureLatency(side, LATENCY_RATE_PER_S, LATENCY_DURATION_MS);
        latencies.get(side)?.push(...lat);
        console.log(
          `  latency round ${r} ${side.label}: ${lat.length} events, p50 ${ms(percentile(lat, 50))} ms, ` +
            `p99 ${ms(percentile(lat, 99))} ms, max ${ms(Math.max(...lat))} ms${note(side)}`,
        );
      }
    }

    const cbPerS = median(throughputs.get(commitbus) ?? []);
    const rawPerS = median(throughputs.get(raw) ?? []);
    const cbLat = latencies.get(commitbus) ?? [];
    const rawLat = latencies.get(raw) ?? [];
    const figures = {
      throughput_ratio: round(cbPerS / rawPerS, 2),
      commitbus_per_s: round(cbPerS),
      raw_per_s: round(rawPerS),
      p50_ms: ms(percentile(cbLat, 50)),
      p99_ms: ms(percentile(cbLat, 99)),
      raw_p50_ms: ms(percentile(rawLat, 50)),
      raw_p99_ms: ms(percentile(rawLat, 99)),
    };
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log();
    console.log(
      table([
        ['', 'commitbus', 'raw bullmq', 'commitbus/raw', 'target', ''],
        [
          'throughput, events/s (median)',
          String(figures.commitbus_per_s),
          String(figures.raw_per_s),
          ratio(cbPerS, rawPerS),
          '>= 1.0x',
          verdict(cbPerS >= rawPerS),
        ],
        [
          'latency p50, ms',
          String(figures.p50_ms),
          String(figures.raw_p50_ms),
          ratio(figures.p50_ms, figures.raw_p50_ms),
          '',
          '',
        ],
        [
          'latency p99, ms',
          String(figures.p99_ms),
          String(figures.raw_p99_ms),
          ratio(figures.p99_ms, figures.raw_p99_ms),
          '<= 2.0x',
          verdict(figures.p99_ms <= 2 * figures.raw_p99_ms),
        ],
      ]),
    );
    console.log(
      `load average ${round(loadavg()[0] ?? 0, 2)} at the end (2 cores; other processes skew latency)`,
    );
    return figures;
  } finally {
    await Promise.allSettled(sides.map((s) => s.close()));
    await deleteKeys(admin, prefix);
    await admin.quit();
  }
}

/** Ordered events (1,000 keys, and one hot key) against unordered ones; prints its table and returns the figures. */
async function compareOrdering(prefix: string): Promise<Record<string, number>> {
  console.log(
    `\nordered vs unordered events on ${REDIS_URL}, prefix ${prefix}, load average ${round(loadavg()[0] ?? 0, 2)}\n` +
      `one bus, a sync no-op handler per class, worker in this process (orderedConcurrency default); ` +
      `${IN_FLIGHT} bus.publish of 10 events in flight; ${ORDERING_EVENTS} events per run ` +
      `(unordered; ordered round-robin over ${ORDERING_KEYS} keys), ${HOT_KEY_EVENTS} on one key; ` +
      `warm-up of ${ORDERING_WARMUP}, ${ORDERING_RUNS} runs per case, rotating order`,
  );
  const started = performance.now();
  const result = await measureOrderingThroughput({
    redisUrl: REDIS_URL,
    prefix,
    events: ORDERING_EVENTS,
    hotKeyEvents: HOT_KEY_EVENTS,
    keys: ORDERING_KEYS,
    inFlight: IN_FLIGHT,
    runs: ORDERING_RUNS,
    warmup: ORDERING_WARMUP,
    onRun: (run, label, perS) =>
      console.log(
        `  run ${run} ${label}: ${round(perS)} events/s (load average ${round(loadavg()[0] ?? 0, 2)})`,
      ),
  });
  const figures = {
    ordered_ratio: round(result.ratio, 2),
    ordered_per_s: round(result.orderedPerS),
    unordered_per_s: round(result.unorderedPerS),
    hot_key_per_s: round(result.hotKeyPerS),
  };
  const vs = (perS: number) => `${(perS / result.unorderedPerS).toFixed(2)}x`;
  console.log();
  console.log(
    table([
      ['ordering throughput (median)', 'events/s', 'vs unordered', 'target', ''],
      ['unordered', String(figures.unordered_per_s), '1.00x', '', ''],
      [
        `ordered, ${ORDERING_KEYS} keys`,
        String(figures.ordered_per_s),
        vs(result.orderedPerS),
        '>= 0.5x',
        result.ratio >= 0.5 ? 'met' : 'MISSED',
      ],
      ['ordered, 1 key', String(figures.hot_key_per_s), vs(result.hotKeyPerS), '', ''],
    ]),
  );
  console.log(
    `load average ${round(loadavg()[0] ?? 0, 2)} at the end; took ${round((performance.now() - started) / 1000)} s`,
  );
  return figures;
}

/** The outbox's cost per unit of work against a plain transaction + `queue.add`; prints its table. */
async function compareOutbox(prefix: string): Promise<OutboxCost> {
  console.log(
    `\noutbox cost on ${DATABASE_URL} and ${REDIS_URL}, prefix ${prefix}: ${OUTBOX_UNITS} units of work per run, ` +
      `${OUTBOX_CONCURRENCY} in flight, warm-up of ${OUTBOX_WARMUP}, ${OUTBOX_RUNS} runs per side, alternating; no workers\n` +
      'with outbox: UnitOfWorkManager.run, insert + SendEventOp (redis, outbox on); ' +
      'plain: dataSource.transaction insert, then queue.add',
  );
  const cost = await measureOutboxCost({
    redisUrl: REDIS_URL,
    databaseUrl: DATABASE_URL,
    prefix,
    units: OUTBOX_UNITS,
    concurrency: OUTBOX_CONCURRENCY,
    runs: OUTBOX_RUNS,
    warmup: OUTBOX_WARMUP,
  });
  const { outbox, plain } = cost;
  console.log();
  console.log(
    table([
      ['per unit of work', 'with outbox', 'plain', 'outbox/plain'],
      ['mean, ms', String(ms(outbox.meanMs)), String(ms(plain.meanMs)), `${cost.ratio.toFixed(2)}x`],
      [
        'p50, ms',
        String(ms(outbox.p50Ms)),
        String(ms(plain.p50Ms)),
        `${(outbox.p50Ms / plain.p50Ms).toFixed(2)}x`,
      ],
      [
        'p99, ms',
        String(ms(outbox.p99Ms)),
        String(ms(plain.p99Ms)),
        `${(outbox.p99Ms / plain.p99Ms).toFixed(2)}x`,
      ],
      [
        'units of work/s',
        String(round(outbox.perS)),
        String(round(plain.perS)),
        `${(outbox.perS / plain.perS).toFixed(2)}x`,
      ],
    ]),
  );
  console.log(`load average ${round(loadavg()[0] ?? 0, 2)} at the end`);
  return cost;
}

/** The HTTP event router against its peers; prints its table and returns the figures. */
async function compareRouter(prefix: string): Promise<Record<string, number>> {
  console.log(
    `\nHTTP event router on ${REDIS_URL}, prefix ${prefix}, load average ${round(loadavg()[0] ?? 0, 2)}\n` +
      `router: \`commitbus router\` in a child process (API, delivery, upkeep), plain HTTP; raw ingest: a bare Fastify + LPUSH child\n` +
      `ingest: ${ROUTER_EVENTS} POST /topics per run, ${ROUTER_IN_FLIGHT} in flight over ${ROUTER_CONNECTIONS} keep-alive connections, subscriber paused; ` +
      `delivery: that backlog to a local subscriber answering 204 (max 100), against raw undici POSTs of batches of 100; ` +
      `${ROUTER_RUNS} runs, alternating\n` +
      `latency: ${LATENCY_RATE_PER_S} events/s open loop for ${LATENCY_DURATION_MS / 1000} s, timeout 0`,
  );
  const result = await measureRouter({
    redisUrl: REDIS_URL,
    prefix,
    events: ROUTER_EVENTS,
    inFlight: ROUTER_IN_FLIGHT,
    connections: ROUTER_CONNECTIONS,
    runs: ROUTER_RUNS,
    latencyRatePerS: LATENCY_RATE_PER_S,
    latencyDurationMs: LATENCY_DURATION_MS,
    onRun: (line) => console.log(`  ${line} (load average ${round(loadavg()[0] ?? 0, 2)})`),
  });
  const ingest = median(result.ingestPerS);
  const rawIngest = median(result.rawIngestPerS);
  const delivered = median(result.deliveredPerS);
  const rawDelivered = median(result.rawDeliveredPerS);
  const figures = {
    router_ingest_per_s: round(ingest),
    router_ingest_ratio: round(ingest / rawIngest, 2),
    router_delivered_per_s: round(delivered),
    router_delivery_ratio: round(delivered / rawDelivered, 2),
    router_p50_ms: ms(percentile(result.latenciesMs, 50)),
    router_p99_ms: ms(percentile(result.latenciesMs, 99)),
  };
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log();
  console.log(
    table([
      ['router (median)', 'router', 'peer', 'router/peer', 'target', ''],
      [
        'ingest, events/s',
        String(figures.router_ingest_per_s),
        String(round(rawIngest)),
        `${figures.router_ingest_ratio.toFixed(2)}x`,
        '>= 10,000/s',
        verdict(ingest >= 10_000),
      ],
      [
        'delivery, events/s',
        String(figures.router_delivered_per_s),
        String(round(rawDelivered)),
        `${figures.router_delivery_ratio.toFixed(2)}x`,
        '>= 50,000/s',
        verdict(delivered >= 50_000),
      ],
      ['publish to delivery p50, ms', String(figures.router_p50_ms), '', '', '', ''],
      [
        'publish to delivery p99, ms',
        String(figures.router_p99_ms),
        '',
        '',
        '<= 25 ms',
        verdict(figures.router_p99_ms <= 25),
      ],
    ]),
  );
  console.log(`load average ${round(loadavg()[0] ?? 0, 2)} at the end`);
  return figures;
}

async function main(): Promise<void> {
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  // `--only sql` or BENCH_ONLY=router (or core, ordering, outbox, event-store, event-store-sqlite, sql, scrape,
  // comma-separated) runs only those sections.
  const only = onlySections();
  const runs = (section: string) => only.length === 0 || only.includes(section);
  // Before the long sections, not after them.
  if (runs('sql') || runs('scrape')) await assertReachable(DATABASE_URL);
  const figures = runs('core') ? await compareWithRawBullmq(prefix) : {};
  const ordering = runs('ordering') ? await compareOrdering(`${prefix}-ordering`) : {};
  const outboxFigures = runs('outbox') ? outboxJson(await compareOutbox(`${prefix}-outbox`)) : {};
  const router = runs('router') ? await compareRouter(`${prefix}-router`) : {};
  const eventStore = runs('event-store') ? await compareEventStore(DATABASE_URL) : {};
  const sqlite = runs('event-store') || runs('event-store-sqlite') ? await compareSqliteLone() : {};
  const sql = runs('sql') ? await compareSql(DATABASE_URL) : {};
  const scrape = runs('scrape') ? await compareScrape(REDIS_URL, DATABASE_URL, `${prefix}-scrape`) : {};
  console.log();
  console.log(
    JSON.stringify({
      ...figures,
      ...ordering,
      ...outboxFigures,
      ...router,
      ...eventStore,
      ...sqlite,
      ...sql,
      ...scrape,
    }),
  );
}

const SECTIONS = [
  'core',
  'ordering',
  'outbox',
  'router',
  'event-store',
  'event-store-sqlite',
  'sql',
  'scrape',
];

/** The sections named by `--only a,b` (or `--only=a,b`) and BENCH_ONLY; none named: all. */
function onlySections(): string[] {
  const args = process.argv.slice(2);
  const named = [process.env.BENCH_ONLY ?? ''];
  args.forEach((arg, i) => {
    if (arg === '--only') named.push(args[i + 1] ?? '');
    else if (arg.startsWith('--only=')) named.push(arg.slice('--only='.length));
  });
  const only = named.flatMap((n) => n.split(',')).filter((s) => s !== '');
  const unknown = only.filter((s) => !SECTIONS.includes(s));
  if (unknown.length > 0) {
    throw new BenchSetupError(
      `no section ${unknown.join(', ')}; the sections are ${SECTIONS.join(', ')}`,
      'BENCH_UNKNOWN_SECTION',
    );
  }
  return only;
}

function outboxJson({ outbox, plain, ratio }: OutboxCost): Record<string, number> {
  return {
    outbox_ratio: round(ratio, 2),
    outbox_mean_ms: ms(outbox.meanMs),
    outbox_p50_ms: ms(outbox.p50Ms),
    outbox_p99_ms: ms(outbox.p99Ms),
    plain_mean_ms: ms(plain.meanMs),
    plain_p50_ms: ms(plain.p50Ms),
    plain_p99_ms: ms(plain.p99Ms),
  };
}

try {
  await main();
} catch (error) {
  if (!(error instanceof BenchSetupError)) throw error;
  console.error(`bench: ${error.message}`);
  process.exitCode = 1;
}
