import { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { HandledEventEntity } from '../../src/idempotency/handled-event.entity.js';
import { COMMITBUS_ENTITIES, type EventBusOptions } from '../../src/index.js';
import { Buses, fastConfig } from './buses.js';
import { closeSchema, openSchema } from './postgres.js';
import { RecordRow } from './records.js';
import { deleteKeys, openRedis, testPrefix } from './redis.js';
import { testRedis } from './transports.js';

/** One of the two setups idempotent handlers are tested on: a transport and the database its records go to. */
export interface IdempotentSetup {
  readonly name: string;
  /** The setup's database (open once the file's tests run). */
  source(): DataSource;
  /** A bus's config and transport on this setup, under `prefix` on Redis. */
  config(prefix: string): Pick<EventBusOptions, 'config' | 'transport'>;
}

/** What {@link idempotentBed} gives a test file. */
export interface IdempotentBed {
  readonly buses: Buses;
  /** bullmq on Redis, records in PostgreSQL. */
  readonly onPostgres: IdempotentSetup;
  /** The memory transport, records in an in-memory SQLite database. */
  readonly onSqlite: IdempotentSetup;
  /** A fresh Redis prefix named after `name`, its keys deleted after the file. */
  prefix(name: string): string;
}

/**
 * The databases of a test file of idempotent handlers: PostgreSQL schema
 * `schema` and an in-memory SQLite database, each with `RecordRow` and
 * commitbus's tables, both emptied of records and completion records before
 * each test; buses closed after each test; Redis keys and both databases
 * dropped after the file. Call it at the top of the file (it adds the hooks).
 */
export function idempotentBed(schema: string): IdempotentBed {
  const redis = openRedis();
  const buses = new Buses();
  const prefixes: string[] = [];
  let pgSource: DataSource;
  let sqliteSource: DataSource;

  beforeAll(async () => {
    pgSource = await openSchema(schema, [RecordRow]);
    sqliteSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [RecordRow, ...COMMITBUS_ENTITIES],
      synchronize: true,
    }).initialize();
  });
  beforeEach(async () => {
    for (const ds of [pgSource, sqliteSource]) {
      await ds.getRepository(RecordRow).clear();
      await ds.getRepository(HandledEventEntity).clear();
    }
  });
  afterEach(() => buses.closeAll());
  afterAll(async () => {
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    await redis.quit();
    await closeSchema(pgSource);
    await sqliteSource.destroy();
  });

  return {
    buses,
    onPostgres: {
      name: 'bullmq + PostgreSQL',
      source: () => pgSource,
      config: (prefix) => ({ config: fastConfig({ prefix }), transport: testRedis() }),
    },
    onSqlite: {
      name: 'memory + SQLite',
      source: () => sqliteSource,
      config: () => ({ config: fastConfig({}) }),
    },
    prefix(name) {
      const prefix = testPrefix(name);
      prefixes.push(prefix);
      return prefix;
    },
  };
}
