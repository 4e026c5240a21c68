import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  COMMITBUS_ENTITIES,
  createEventBus,
  type EventBus,
  SendEventOp,
  silentLogger,
  UnitOfWorkManager,
} from '../src/index.js';
import { redisTransport } from '../src/transports/redis/index.js';
import { queueNames } from '../src/transports/redis/queue-names.js';
import { BenchEvent } from './commitbus-side.js';
import { nowMs } from './load.js';
import { deleteKeys } from './redis-keys.js';
import { mean, percentile, round } from './stats.js';

/** The row each unit of work inserts. */
@Entity('bench_row')
export class BenchRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 16 })
  side!: string;

  @Column({ type: 'double precision' })
  sentAt!: number;
}

/** How the outbox cost is measured. */
export interface OutboxCostOptions {
  redisUrl: string;
  /** PostgreSQL; a schema of its own is created and dropped. */
  databaseUrl: string;
  /** Redis prefix of its own; every key under it is deleted at the end. */
  prefix: string;
  /** Units of work per run and side. */
  units: number;
  /** Units of work in flight (concurrent loops). */
  concurrency: number;
  /** Runs per side, alternating. */
  runs: number;
  /** Units of work per side before measuring. */
  warmup: number;
}

/** Per-unit-of-work times of one side, pooled over its runs. */
export interface SideFigures {
  readonly label: string;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Units of work per second, wall clock, over all its runs. */
  readonly perS: number;
}

/** What {@link measureOutboxCost} found. */
export interface OutboxCost {
  readonly outbox: SideFigures;
  readonly plain: SideFigures;
  /** Mean time per unit of work with the outbox over the mean without. */
  readonly ratio: number;
}

interface Side {
  readonly label: string;
  run(n: number): Promise<void>;
  /** Lets work the side left in the background finish (outbox deletes) before the next run. */
  settle(): Promise<void>;
  readonly timesMs: number[];
  wallMs: number;
  units: number;
}

/**
 * Runs `units` units of work, `concurrency` at a time, each timed from start
 * until it resolved (commit and publish included).
 */
async function runUnits(side: Side, units: number, concurrency: number, record: boolean): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < units) {
      const n = next++;
      const started = performance.now();
      await side.run(n);
      if (record) side.timesMs.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, units) }, lane));
  if (record) {
    side.wallMs += performance.now() - started;
    side.units += units;
  }
  await side.settle();
}

async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * The cost of the transactional outbox for a service, in one process, with no
 * worker running (publish cost only):
 *
 * - **outbox**: `UnitOfWorkManager.run` inserting one row through
 *   `uow.manager` and registering `SendEventOp(event)`, on a Redis bus with
 *   the outbox on: the event row is written in the transaction, published
 *   after commit, then deleted in a batch;
 * - **plain**: the same insert in `dataSource.transaction`, then BullMQ
 *   `queue.add` after commit (the "save, then queue.add() and hope" it replaces).
 *
 * Both share one DataSource (pool of `concurrency + 4`) and one Redis; runs
 * alternate (ABBA...) so load from elsewhere falls on both.
 */
export async function measureOutboxCost(options: OutboxCostOptions): Promise<OutboxCost> {
  const schema = `bench_outbox_${randomUUID().slice(0, 8)}`;
  await adminQuery(options.databaseUrl, `CREATE SCHEMA ${schema}`);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.databaseUrl,
    schema,
    entities: [BenchRow, ...COMMITBUS_ENTITIES],
    synchronize: true,
    extra: { max: options.concurrency + 4 },
  });
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  let bus: EventBus | undefined;
  let queue: Queue | undefined;
  try {
    await dataSource.initialize();
    const activeBus = createEventBus({
      events: [BenchEvent],
      config: { prefix: options.prefix, name: 'outbox' },
      transport: redisTransport({ url: options.redisUrl }),
      logger: silentLogger,
      dataSource,
    });
    bus = activeBus;
    const plainQueue = new Queue<{ id: string; sentAt: number }>('plain', {
      connection: redis,
      prefix: options.prefix,
    });
    queue = plainQueue;
    await plainQueue.waitUntilReady();
    const uows = new UnitOfWorkManager({ dataSource, bus: activeBus });

    const outbox: Side = {
      label: 'with outbox',
      timesMs: [],
      wallMs: 0,
      units: 0,
      run: () =>
        uows.run(async (uow) => {
          const sentAt = nowMs();
          await uow.manager.insert(BenchRow, { side: 'outbox', sentAt });
          uow.register(new SendEventOp(BenchEvent.create({ sentAt })));
        }),
      settle: async () => {
        await activeBus.outbox?.flush();
      },
    };
    const plain: Side = {
      label: 'plain',
      timesMs: [],
      wallMs: 0,
      units: 0,
      run: async () => {
        const sentAt = nowMs();
        await dataSource.transaction((manager) => manager.insert(BenchRow, { side: 'plain', sentAt }));
        await plainQueue.add(
          'BENCH',
          { id: BenchEvent.create({ sentAt }).id, sentAt },
          { removeOnComplete: true },
        );
      },
      settle: async () => {},
    };

    for (const side of [outbox, plain]) await runUnits(side, options.warmup, options.concurrency, false);
    for (let run = 0; run < options.runs; run++) {
      const order = run % 2 === 0 ? [outbox, plain] : [plain, outbox];
      for (const side of order) {
        const before = side.wallMs;
        await runUnits(side, options.units, options.concurrency, true);
        const perS = options.units / ((side.wallMs - before) / 1000);
        console.log(`  outbox run ${run + 1} ${side.label}: ${round(perS)} units of work/s`);
      }
    }

    // Every unit of work published exactly one event, and nothing is left in the outbox.
    const published = await redis.xlen(queueNames({ prefix: options.prefix, name: 'outbox' }).stream);
    const added = await plainQueue.count();
    const left = await activeBus.outbox?.pending();
    const expected = options.warmup + options.runs * options.units;
    if (published !== expected || added !== expected || left !== 0) {
      throw new Error(
        `outbox bench: expected ${expected} events each way and an empty outbox, got ${published} published with the outbox, ${added} jobs added, ${left} outbox rows left`,
      );
    }
    const figures = (side: Side): SideFigures => ({
      label: side.label,
      meanMs: mean(side.timesMs),
      p50Ms: percentile(side.timesMs, 50),
      p99Ms: percentile(side.timesMs, 99),
      perS: side.units / (side.wallMs / 1000),
    });
    const withOutbox = figures(outbox);
    const without = figures(plain);
    return { outbox: withOutbox, plain: without, ratio: withOutbox.meanMs / without.meanMs };
  } finally {
    await bus?.close();
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await deleteKeys(redis, options.prefix);
    await redis.quit();
    if (dataSource.isInitialized) await dataSource.destroy();
    await adminQuery(options.databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}
