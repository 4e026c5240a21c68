/**
 * Starts a demo bus on Redis with some of everything the dashboard shows
 * (dead letters, a halted order key, a pause, router subscribers with queued
 * events, a halted event store, twenty hours of history written into the
 * bus's history hash as its workers would have), opens the dashboard in
 * headless Chromium and saves the README's screenshots to
 * docs/images/dashboard-*.png.
 *
 *   npx tsx examples/dashboard/screenshots.ts
 *
 * Needs Redis on REDIS_URL (default redis://127.0.0.1:6379) and Chromium at
 * CHROMIUM_PATH (default /usr/bin/chromium); deletes its keys when done.
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type BrowserContext, chromium } from 'playwright-core';
import { DataSource, EntitySchema } from 'typeorm';
import { startDashboard } from '../../src/dashboard/index.js';
import {
  COMMITBUS_ENTITIES,
  createEventBus,
  createEventStore,
  defineHandler,
  defineModel,
  Event,
  EventType,
  type StoreEvent,
  silentLogger,
} from '../../src/index.js';
import type { DeliveryAttemptLog } from '../../src/router/index.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { queueNamesOf } from '../../src/transports/redis/queue-names.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium-args.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = 'commitbus-screenshots';
const OUT = join(import.meta.dirname, '../../docs/images');

@EventType('ORDER.PLACE')
class OrderPlaced extends Event {
  orderId!: string;
  email!: string;
}

@EventType('PAYMENT.CAPTURE', { orderBy: (e: PaymentCaptured) => `account:${e.account}` })
class PaymentCaptured extends Event {
  account!: string;
  cents!: number;
}

const sendEmail = defineHandler<OrderPlaced>('emails.send', (event) => {
  if (event.email.endsWith('.invalid')) throw new Error(`no MX record for ${event.email.split('@')[1]}`);
  throw new Error('SMTP 421: mail.example.org is not accepting mail, try again later');
});
const createInvoice = defineHandler<OrderPlaced>('invoices.create', () => {});
const postLedger = defineHandler<PaymentCaptured>('ledger.post', (event) => {
  if (event.account === 'acme') throw new Error('ledger account acme is closed');
});

interface Stock {
  sku: string;
  qty: number;
}
const StockEntity = new EntitySchema<Stock>({
  name: 'DemoStock',
  tableName: 'demo_stock',
  columns: { sku: { type: 'varchar', length: 64, primary: true }, qty: { type: 'integer' } },
});
const stock = defineModel<Stock>({
  name: 'stock',
  entity: StockEntity,
  reducers: {
    'STOCK.ADD': (event: StoreEvent<Stock>) => ({ sav: [event.data] }),
    'STOCK.REMOVE': (event: StoreEvent<Stock>) => {
      throw new Error(`cannot remove ${event.data.qty} of ${event.data.sku}: only 2 in stock`);
    },
  },
});

async function deleteKeys(redis: Redis): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `{${PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  await deleteKeys(redis);
  const bus = createEventBus({
    events: [OrderPlaced, PaymentCaptured],
    handlers: {
      'ORDER.PLACE': [{ handler: sendEmail, attempts: 1 }, createInvoice],
      'PAYMENT.CAPTURE': [{ handler: postLedger, sync: true, attempts: 1 }],
    },
    config: { prefix: PREFIX, name: 'shop', blockMs: 50 },
    transport: redisTransport({ url: REDIS_URL }),
    logger: silentLogger,
  });
  const dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [StockEntity, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  const store = createEventStore({
    dataSource,
    models: [stock],
    logger: silentLogger,
    retryDelayMs: 600_000,
  });
  const worker = await bus.startWorker({ handleSignals: false });
  try {
    await store.start();
    await store.dispatch('STOCK.ADD', { sku: 'mug', qty: 2 });
    await store.dispatch('STOCK.REMOVE', { sku: 'mug', qty: 5 }, { wait: false });

    const emails = ['ada', 'grace', 'linus', 'barbara', 'ken', 'edsger', 'donald', 'frances'].flatMap(
      (name) => [`${name}@example.org`, `${name}@example.invalid`],
    );
    const orders = emails
      .slice(0, 13)
      .map((email, i) => OrderPlaced.create({ orderId: `o-${1001 + i}`, email }));
    await bus.publish(orders);
    await bus.publish([
      PaymentCaptured.create({ account: 'acme', cents: 4_200 }),
      PaymentCaptured.create({ account: 'acme', cents: 1_000 }),
      PaymentCaptured.create({ account: 'globex', cents: 990 }),
    ]);
    await bus.whenIdle(20_000);
    await bus.rules.pause({ handler: 'invoices.create' });
    await bus.publish(OrderPlaced.create({ orderId: 'o-1004', email: 'margaret@example.org' }));
    await bus.whenIdle(20_000);

    const router = bus.router;
    for (const [name, topics] of [
      ['billing', ['orders', 'payments']],
      ['analytics', ['orders']],
    ] as const) {
      await router.subscribers.saveSubscriber({
        name,
        callback: `https://${name}.example.org/hooks/commitbus`,
        uuid: `${name}-uuid`,
        maxEvents: 100,
        timeoutMs: 60_000,
        topics: [...topics],
      });
    }
    await router.batches.ingest('shop', 'orders', ['{"id":"o-1001"}', '{"id":"o-1002"}'], Date.now());
    await seedAttempts(router.attempts);

    await seedHistory(redis, queueNamesOf(bus.config).history);
    const dashboard = await startDashboard({ bus, eventStore: store, router, refreshMs: 2_000 });
    const profile = await mkdtemp(join(tmpdir(), 'cb-screenshots-'));
    try {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        viewport: { width: 1280, height: 800 },
        args: [...CHROMIUM_ARGS],
      });
      try {
        await shoot(context, dashboard.url);
      } finally {
        await context.close();
      }
    } finally {
      await rm(profile, { recursive: true, force: true });
      await dashboard.close();
    }
  } finally {
    await worker.close();
    await store.close();
    await bus.close();
    await dataSource.destroy();
    await deleteKeys(redis);
    await redis.quit();
  }
}

/**
 * Twenty hours of minutes as the bus's workers would have recorded them (see
 * `history-record.lua`): a day's traffic with a burst of failures an hour ago.
 */
async function seedHistory(redis: Redis, key: string): Promise<void> {
  const now = Date.now();
  const current = now - (now % 60_000);
  const fields: string[] = [];
  for (let ago = 1_200; ago >= 1; ago--) {
    const wave = Math.round(420 + 260 * Math.sin(ago / 190) + 50 * Math.sin(ago / 4));
    const burst = ago > 55 && ago < 70 ? 40 : 0;
    const failed = 2 + (ago % 7) + burst;
    const backlog = Math.max(0, Math.round(30 * Math.sin(ago / 11)) + burst * 3);
    const values = [
      wave,
      wave - 3,
      failed,
      failed - 1,
      burst > 0 ? 6 : ago % 40 === 0 ? 1 : 0,
      backlog,
      backlog * 40,
    ];
    fields.push(String(current - ago * 60_000), values.join(' '));
  }
  await redis.hset(key, ...fields);
}

/** The attempts a delivery worker would have logged: billing delivers, analytics has been failing for a while. */
async function seedAttempts(log: DeliveryAttemptLog): Promise<void> {
  const now = Date.now();
  for (let i = 30; i >= 1; i--) {
    const at = now - i * 20_000;
    await log.record('billing', {
      at,
      batch: `b-${i}`,
      events: 3,
      ok: true,
      status: 204,
      error: null,
      durationMs: 40 + (i % 9) * 7,
    });
    const failing = i < 12;
    await log.record('analytics', {
      at,
      batch: `a-${i}`,
      events: 2,
      ok: !failing,
      status: failing ? 503 : 200,
      error: failing ? 'HTTP 503' : null,
      durationMs: failing ? 5_000 : 120,
    });
  }
}

async function shoot(context: BrowserContext, url: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.waitForFunction(() => {
    const charts = (globalThis as { __charts?: Record<string, { points: number }> }).__charts;
    return charts !== undefined && Object.values(charts).some((c) => c.points > 0);
  });
  await page.screenshot({ path: join(OUT, 'dashboard-overview.png') });
  await page.locator('#history-section h2').evaluate((el) => el.scrollIntoView());
  await page.screenshot({ path: join(OUT, 'dashboard-history.png') });
  await page.locator('#workers-section h2').evaluate((el) => el.scrollIntoView());
  await page.screenshot({ path: join(OUT, 'dashboard-operations.png') });
  await page.goto(`${url}/dead-letters?view=groups`);
  await page.locator('#letter-groups').waitFor();
  await page.screenshot({ path: join(OUT, 'dashboard-dead-letters.png') });
  await page.goto(`${url}/router`);
  await page.locator('#router-subscriber-section').waitFor();
  await page.screenshot({ path: join(OUT, 'dashboard-router.png') });
  await page.goto(`${url}/queues/`);
  await page.getByText('shop-async', { exact: true }).first().waitFor();
  await page.getByText('Loading...').waitFor({ state: 'detached' });
  await page.screenshot({ path: join(OUT, 'dashboard-bull-board.png') });
  console.log('saved docs/images/dashboard-{overview,history,operations,dead-letters,router,bull-board}.png');
}

await main();
