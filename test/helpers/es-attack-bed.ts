import { createHash } from 'node:crypto';
import { DataSource, EntitySchema } from 'typeorm';
import type { EventStoreOptions } from '../../src/event-store/index.js';
import { COMMITBUS_ENTITIES, createEventStore, type EventStore } from '../../src/index.js';
import { closeSchema, openSchema } from './postgres.js';
import { type LogLine, recordingLogger } from './recording-logger.js';

/** A counter row: the attack tests' main table. */
export interface AtkCounter {
  id: string;
  n: number;
  note: string | null;
  hits: number;
}

/** `atk_counters`: `hits` has a database default of 7, `note` is nullable. */
export const AtkCounterEntity = new EntitySchema<AtkCounter>({
  name: 'AtkCounter',
  tableName: 'atk_counters',
  columns: {
    id: { type: 'varchar', length: 64, primary: true },
    n: { type: 'integer' },
    note: { type: 'varchar', length: 64, nullable: true },
    hits: { type: 'integer', default: 7 },
  },
});

/** A row keyed by a PostgreSQL uuid. */
export interface AtkUuid {
  id: string;
  n: number;
}

/** `atk_uuids` (PostgreSQL only: a `uuid` primary key). */
export const AtkUuidEntity = new EntitySchema<AtkUuid>({
  name: 'AtkUuid',
  tableName: 'atk_uuids',
  columns: { id: { type: 'uuid', primary: true }, n: { type: 'integer' } },
});

/** A row with a bigint counter and no transformer (PostgreSQL returns it as a string). */
export interface AtkBig {
  id: string;
  n: number | string;
}

/** `atk_bigs`. */
export const AtkBigEntity = new EntitySchema<AtkBig>({
  name: 'AtkBig',
  tableName: 'atk_bigs',
  columns: { id: { type: 'varchar', length: 64, primary: true }, n: { type: 'bigint' } },
});

/** Every attack entity. */
export const ATK_ENTITIES = [AtkCounterEntity, AtkUuidEntity, AtkBigEntity];

/** An event store on a fresh PostgreSQL schema (or an SQLite memory database), with its logs. */
export interface Bed {
  readonly dataSource: DataSource;
  readonly store: EventStore;
  readonly logs: LogLine[];
  /** Closes the store and drops the schema (or the SQLite database). */
  close(): Promise<void>;
}

type Models = EventStoreOptions['models'];
type Extra = Partial<Omit<EventStoreOptions, 'dataSource' | 'models'>>;

/** A started store on PostgreSQL schema `schema`, small delays so tests run fast. */
export async function pgBed(schema: string, models: Models, options: Extra = {}): Promise<Bed> {
  const dataSource = await openSchema(schema, ATK_ENTITIES);
  return startBed(dataSource, models, options, () => closeSchema(dataSource));
}

/** A started store on an SQLite memory database. */
export async function sqliteBed(models: Models, options: Extra = {}): Promise<Bed> {
  const dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [AtkCounterEntity, AtkBigEntity, ...COMMITBUS_ENTITIES],
    synchronize: true,
  }).initialize();
  return startBed(dataSource, models, options, () => dataSource.destroy());
}

async function startBed(
  dataSource: DataSource,
  models: Models,
  options: Extra,
  drop: () => Promise<void>,
): Promise<Bed> {
  const logger = recordingLogger();
  const store = createEventStore({
    dataSource,
    models,
    logger,
    pollMs: 10,
    takeoverMs: 50,
    retryDelayMs: 50,
    maxRetryDelayMs: 200,
    ...options,
  });
  await store.start();
  return {
    dataSource,
    store,
    logs: logger.lines,
    async close() {
      await store.close();
      await drop();
    },
  };
}

/** A promise with its resolver, to hold a reducer until the test lets it go. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * The server pid of the connection holding `dataSource`'s event-store writer
 * lock (PostgreSQL), found by the lock's own key so that no other test's
 * connection is ever picked; `undefined` when nobody holds it.
 */
export async function writerPid(dataSource: DataSource): Promise<number | undefined> {
  const { schema } = dataSource.options as { schema?: string };
  const path = `${schema ?? 'public'}.commitbus_es_events`;
  const key = createHash('sha256').update(`commitbus-event-store:${path}`).digest().readBigInt64BE(0);
  const rows: { pid: number }[] = await dataSource.query(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
       AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
    [key.toString()],
  );
  return rows[0]?.pid;
}
