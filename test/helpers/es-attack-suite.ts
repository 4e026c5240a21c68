import { afterEach } from 'vitest';
import { COMMITBUS_ENTITIES, createEventStore, defineModel, type StoreEvent } from '../../src/index.js';
import {
  ATK_ENTITIES,
  type AtkCounter,
  AtkCounterEntity,
  type Bed,
  gate,
  pgBed,
  sqliteBed,
  writerPid,
} from './es-attack-bed.js';
import { connectSchema } from './postgres.js';
import { recordingLogger } from './recording-logger.js';

/** Event data of the attack tests' counters. */
export type Data = StoreEvent<{ id: string; n?: number; bad?: boolean }>;

/**
 * What an attack test file shares: its open beds, clean-ups to run after each
 * test, the schema of the last PostgreSQL bed, and the gates the `counters`
 * model's reducers wait at (`hold`) and signal (`entered`).
 */
export const attack = {
  beds: [] as Bed[],
  extra: [] as (() => Promise<unknown>)[],
  schema: 'commitbus_test_es_attack',
  hold: gate(),
  entered: gate(),
};

let count = 0;

/** Registers the clean-up after each test of the calling file; `name` keeps its schemas apart. */
export function attackSuite(name: string): void {
  const base = `commitbus_test_es_attack_${name}`;
  attack.schema = base;
  count = 0;
  afterEach(async () => {
    attack.hold.open(); // let any reducer still held by the test finish, so its store can close
    for (const undo of attack.extra.splice(0).reverse()) await undo().catch(() => {});
    for (const bed of attack.beds.splice(0)) await bed.close();
    attack.hold = gate();
    attack.entered = gate();
  });
  attack.schema = base;
  prefix = base;
}

let prefix = 'commitbus_test_es_attack';

/** A PostgreSQL bed on a schema of its own (a store left hanging keeps its schema's writer lock). */
export async function onPg(models: Parameters<typeof pgBed>[1], options: Parameters<typeof pgBed>[2] = {}) {
  attack.schema = `${prefix}_${++count}`;
  const bed = await pgBed(attack.schema, models, options);
  attack.beds.push(bed);
  return bed;
}

/** Leaves `bed` hanging (its store cannot close): cuts its writer's connection and drops its schema. */
export async function abandon(bed: Bed): Promise<void> {
  attack.beds = attack.beds.filter((b) => b !== bed);
  const pid = await writerPid(bed.dataSource);
  if (pid !== undefined) await bed.dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
  await bed.dataSource.query(`DROP SCHEMA IF EXISTS ${attack.schema} CASCADE`);
}

/** A SQLite bed in memory. */
export async function onSqlite(
  models: Parameters<typeof sqliteBed>[0],
  options: Parameters<typeof sqliteBed>[1] = {},
) {
  const bed = await sqliteBed(models, options);
  attack.beds.push(bed);
  return bed;
}

/** A second "process" on the last PostgreSQL bed's schema: its own DataSource and store. */
export async function peer(models: Parameters<typeof pgBed>[1], options: { takeoverMs?: number } = {}) {
  const dataSource = await connectSchema(attack.schema, {
    entities: [...ATK_ENTITIES, ...COMMITBUS_ENTITIES],
  });
  const store = createEventStore({
    dataSource,
    models,
    logger: recordingLogger(),
    pollMs: 10,
    takeoverMs: options.takeoverMs ?? 20,
    retryDelayMs: 50,
  });
  attack.extra.push(
    () => dataSource.destroy(),
    () => store.close(),
  );
  return { dataSource, store };
}

/** `p`'s outcome, or 'pending' when it has not settled within `ms`. */
export function within<T>(ms: number, p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);
}

/** The counters' rows, by id. */
export const rows = (bed: Bed) =>
  bed.dataSource.getRepository(AtkCounterEntity).find({ order: { id: 'ASC' } });

/** Counters: SET (held at `attack.hold` when data.n is 1), HIT (+1 through ctx.get), FAIL (throws while data.bad). */
export const counters = defineModel<AtkCounter>({
  name: 'counters',
  entity: AtkCounterEntity,
  reducers: {
    SET: async (e: Data) => {
      if (e.data.n === 1) {
        attack.entered.open();
        await attack.hold.promise;
      }
      return { sav: [{ id: e.data.id, n: e.data.n ?? 0, hits: 1 }] };
    },
    HIT: async (e: Data, { get }) => ({
      sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1, hits: 1 }],
    }),
    FAIL: async (e: Data) => {
      attack.entered.open();
      await attack.hold.promise;
      if (e.data.bad) throw new Error('bad data');
      return { sav: [{ id: e.data.id, n: 1, hits: 1 }] };
    },
  },
});
