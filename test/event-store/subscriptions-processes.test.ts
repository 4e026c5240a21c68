/**
 * Durable subscriptions across real processes: two subscriber processes
 * (test/fixtures/event-store-subscriber-process.ts, never writers) run the
 * same subscription while this process is the store's writer. One consumes
 * at a time; SIGKILLed mid-stream, the other resumes from the stored
 * checkpoint once the dead one's lease has run out, so every event is
 * handled at least once and only those after the last checkpoint twice;
 * stopped gracefully, it hands over at once and nothing comes twice.
 * Outcomes are read from the database (`es_sub_seen`, the checkpoint row).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMITBUS_ENTITIES, createEventStore, type EventStore, silentLogger } from '../../src/index.js';
import { ITEM_ENTITIES, items } from '../fixtures/es-items.js';
import { SeenEntity } from '../fixtures/subscriber-seen.js';
import { closeSchema, openSchema, PG } from '../helpers/postgres.js';
import { type SubscriberChild, subscriberProcesses } from '../helpers/subscriber-child.js';
import { waitFor } from '../helpers/wait-for.js';

const EVENTS = 100;
// Each event takes a subscriber this long: a few seconds for all, so a kill lands mid-stream.
const HANDLE_MS = 30;
const BATCH = 5;
const spawnSubscriber = subscriberProcesses();

interface Database {
  readonly dialect: 'postgres' | 'sqlite';
  open(): Promise<{ dataSource: DataSource; env: Record<string, string> }>;
  close(dataSource: DataSource): Promise<void>;
}

const SCHEMA = `commitbus_test_es_subs_procs_${process.pid}`;
let dir: string | undefined;
const databases: Database[] = [
  {
    dialect: 'postgres',
    open: async () => ({
      dataSource: await openSchema(SCHEMA, [SeenEntity, ...ITEM_ENTITIES]),
      env: { SUB_DB: 'postgres', SUB_PG: JSON.stringify({ ...PG, username: PG.user }), SUB_SCHEMA: SCHEMA },
    }),
    close: closeSchema,
  },
  {
    dialect: 'sqlite',
    open: async () => {
      dir = await mkdtemp(join(tmpdir(), 'es-subs-'));
      const file = join(dir, 'store.sqlite');
      const dataSource = await new DataSource({
        type: 'better-sqlite3',
        database: file,
        entities: [SeenEntity, ...ITEM_ENTITIES, ...COMMITBUS_ENTITIES],
        synchronize: true,
        timeout: 30_000,
      }).initialize();
      return { dataSource, env: { SUB_DB: 'sqlite', SUB_SQLITE_FILE: file } };
    },
    close: async (dataSource) => {
      await dataSource.destroy();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  },
];

describe.each(databases)('event store subscriptions across processes ($dialect)', (db) => {
  let dataSource: DataSource;
  let env: Record<string, string>;
  let store: EventStore;

  beforeEach(async () => {
    ({ dataSource, env } = await db.open());
    store = createEventStore({ dataSource, models: [items], pollMs: 10, logger: silentLogger });
    await store.start();
    for (let i = 1; i <= EVENTS; i++)
      await store.dispatch('ITEM.RESULT', { sav: [{ id: `i${i}`, name: null, qty: i }] }, { wait: false });
    expect(await store.waitForQueue()).toBe(EVENTS);
  });
  afterEach(async () => {
    await store?.close();
    if (dataSource !== undefined) await db.close(dataSource);
  });

  const subscriber = (name: string, leaseMs: number, handleMs: number, holdAfter?: number): SubscriberChild =>
    spawnSubscriber({
      ...env,
      SUB_LABEL: `es-subs-${name}`,
      SUB_NAME: name,
      SUB_LEASE_MS: String(leaseMs),
      SUB_HANDLE_MS: String(handleMs),
      SUB_BATCH: String(BATCH),
      ...(holdAfter === undefined ? {} : { SUB_HOLD_AFTER: String(holdAfter) }),
    });
  const seenBy = async (pid: number) =>
    (await dataSource.getRepository(SeenEntity).find({ where: { pid } }))
      .map((s) => s.v)
      .sort((a, b) => a - b);
  const owner = async (name: string) => (await store.subscriptions.status(name))?.owner ?? '';
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  /**
   * Starts two subscribers of `name`, the first alone until it is the
   * consumer (and, with `holdAfter`, stuck past that version until killed).
   */
  async function pair(
    name: string,
    leaseMs: number,
    holdAfter?: number,
  ): Promise<[SubscriberChild, SubscriberChild]> {
    const first = subscriber(name, leaseMs, HANDLE_MS, holdAfter);
    await first.ready;
    await waitFor('the first to consume', async () => (await owner(name)).includes(`:${first.pid}:`), {
      timeoutMs: 30_000,
    });
    const second = subscriber(name, leaseMs, HANDLE_MS);
    await second.ready;
    return [first, second];
  }

  it('SIGKILLed mid-stream, the other process resumes at the checkpoint once the lease ran out: every event at least once', async () => {
    // A lease long enough that a live process on a loaded machine keeps it (renewed every third of it).
    // The first stops part-way (event 23 never finishes), so however loaded the machine, it dies mid-stream.
    const [first, second] = await pair('crash', 5_000, 22);
    await waitFor('the first to be part-way', async () => (await seenBy(first.pid)).length >= 22, {
      timeoutMs: 30_000,
      intervalMs: 5,
    });
    expect(await owner('crash')).toContain(`:${first.pid}:`);
    await first.kill();
    const atKill = (await store.subscriptions.status('crash'))?.position as number;
    expect(atKill).toBeGreaterThanOrEqual(10);
    expect(atKill).toBeLessThan(EVENTS - BATCH);

    expect(await store.subscriptions.caughtUp('crash', { timeoutMs: 60_000, pollMs: 20 })).toBe(EVENTS);
    expect(await owner('crash')).toContain(`:${second.pid}:`);
    const byFirst = await seenBy(first.pid);
    const bySecond = await seenBy(second.pid);
    // The first went in order up to where it died, at most a page past its last checkpoint.
    expect(byFirst).toEqual(range(1, byFirst.length));
    expect(byFirst.length).toBeGreaterThanOrEqual(atKill);
    expect(byFirst.length - atKill).toBeLessThanOrEqual(BATCH);
    // The second began right after the stored checkpoint and saw each event once.
    expect(bySecond).toEqual(range(atKill + 1, EVENTS));
  }, 120_000);

  it('stopped gracefully, it hands over at once (a 60 s lease) and no event comes twice', async () => {
    const [first, second] = await pair('handover', 60_000);
    await waitFor('the first to be part-way', async () => (await seenBy(first.pid)).length >= 10, {
      timeoutMs: 30_000,
      intervalMs: 5,
    });
    first.stop();
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await store.subscriptions.caughtUp('handover', { timeoutMs: 60_000, pollMs: 20 })).toBe(EVENTS);
    expect(await owner('handover')).toContain(`:${second.pid}:`);
    const byFirst = await seenBy(first.pid);
    const bySecond = await seenBy(second.pid);
    expect(byFirst).toEqual(range(1, byFirst.length));
    expect(bySecond).toEqual(range(byFirst.length + 1, EVENTS));
  }, 120_000);
});
