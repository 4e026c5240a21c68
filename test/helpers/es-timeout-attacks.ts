/**
 * What the event store's step-timeout attacks share (test/attack-event-store-timeout*.test.ts):
 * stores on SQLite files read back through a second connection, and a model whose
 * HANG never settles.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMITBUS_ENTITIES, createEventStore, defineModel, type EventStore } from '../../src/index.js';
import { AtkBigEntity, type AtkCounter, AtkCounterEntity } from './es-attack-bed.js';
import { attack, type Data, within } from './es-attack-suite.js';
import { recordingLogger } from './recording-logger.js';

/** Never settles. */
export const forever = () => new Promise<never>(() => {});
/** No retry during a test: a halt stays a halt until the test acts. */
export const NO_RETRY = { retryDelayMs: 60_000, maxRetryDelayMs: 60_000 };

export const version = (store: EventStore) => store.getVersion();

/** A started store on an SQLite file (another connection can look at what it committed). */
export async function sqliteFile(
  models: Parameters<typeof createEventStore>[0]['models'],
  options: { stepTimeoutMs: number },
) {
  const file = join(
    tmpdir(),
    `commitbus-atk-t-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.sqlite`,
  );
  const dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: file,
    entities: [AtkCounterEntity, AtkBigEntity, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  const store = createEventStore({
    dataSource,
    models,
    logger: recordingLogger(),
    pollMs: 10,
    takeoverMs: 50,
    ...NO_RETRY,
    ...options,
  });
  attack.extra.push(async () => {
    await within(2_000, store.close());
    await within(2_000, dataSource.destroy());
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });
  await store.start();
  return { store, dataSource, file };
}

/** What a second connection reads from the SQLite file: the handled version, the events queued, the counters' ids. */
export async function onDisk(file: string) {
  const reader = await new DataSource({
    type: 'better-sqlite3',
    database: file,
    readonly: true,
    timeout: 1_000,
  }).initialize();
  try {
    const [state] = await reader.query(`SELECT handled FROM commitbus_es_state WHERE id = 'writer'`);
    const [events] = await reader.query('SELECT COUNT(*) AS n FROM commitbus_es_events');
    const counters: { id: string }[] = await reader.query('SELECT id FROM atk_counters ORDER BY id');
    return {
      handled: Number(state?.handled ?? 0),
      events: Number(events.n),
      counters: counters.map((r) => r.id),
    };
  } finally {
    await reader.destroy();
  }
}

/** HIT: +1 on data.id (through ctx.get); HANG: never settles while data.hang. */
export function hitsAnd(extra: Record<string, (e: Data, ctx: never) => unknown> = {}) {
  return defineModel<AtkCounter>({
    name: 'hits',
    entity: AtkCounterEntity,
    reducers: {
      HIT: async (e: Data, { get }) => ({
        sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1, hits: 1 }],
      }),
      HANG: async (e: Data & { data: { hang?: boolean } }) => {
        if (e.data.hang) await forever();
        return { sav: [{ id: e.data.id, n: 100, hits: 1 }] };
      },
      ...(extra as object),
    },
  });
}

/** HIT: +1 on data.id (through ctx.get), except that a replay of `slow` never settles. */
export const replayHangs = defineModel<AtkCounter>({
  entity: AtkCounterEntity,
  reducers: {
    HIT: async (e: Data, { get, replaying }) => {
      if (replaying && e.data.id === 'slow') await forever();
      return { sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1, hits: 1 }] };
    },
  },
});
