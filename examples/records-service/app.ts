import 'reflect-metadata';
import { resolve } from 'node:path';
import { DataSource } from 'typeorm';
import {
  createEventBus,
  createEventStore,
  type Event,
  type EventBus,
  type EventStore,
  loadConfigFromEnv,
  type ResolvedCommitbusOptions,
  silentLogger,
  UnitOfWorkManager,
} from '../../src/index.js';
import { transportFromEnv } from '../../src/transports/select/index.js';
import { sqlTransport } from '../../src/transports/sql/index.js';
import { ENTITIES } from './entities.js';
import { EVENTS } from './events.js';
import { eventHandlers } from './handlers.js';
import { RecordService } from './record.service.js';
import { VIEW_MODELS } from './views.js';

/** The PostgreSQL schema the example's tables go in (`DEMO_PG_SCHEMA` names another). */
export function demoSchema(env: NodeJS.ProcessEnv = process.env): string {
  const schema = env.DEMO_PG_SCHEMA ?? 'commitbus_demo';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`DEMO_PG_SCHEMA must be a lower-case SQL identifier, got "${schema}"`);
  }
  return schema;
}

/**
 * The SQLite file of the embedded default, absolute: `DEMO_SQLITE_FILE`, else
 * `.commitbus-demo.sqlite` in the current directory; `undefined` when
 * `DATABASE_URL` names a PostgreSQL instead.
 */
export function demoSqliteFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.DATABASE_URL) return undefined;
  return resolve(env.DEMO_SQLITE_FILE ?? '.commitbus-demo.sqlite');
}

/**
 * The example's bus configuration: from the environment, its keys under
 * `commitbus-demo` by default. On the SQLite file the leases are short: a
 * rerun after a `kill -9` waits for the dead run's leases on its lanes and
 * jobs to run out before it handles what that run left (one demo runs on the
 * file at a time, and its handlers take milliseconds).
 */
export function demoConfig(env: NodeJS.ProcessEnv = process.env): ResolvedCommitbusOptions {
  const prefix = env.COMMITBUS_REDIS_PREFIX ?? env.COMMITBUS_PREFIX ?? 'commitbus-demo';
  if (demoSqliteFile(env) === undefined) return loadConfigFromEnv(env, { redis: { prefix } });
  return loadConfigFromEnv(env, {
    redis: { prefix },
    handlers: { lockDurationMs: DEAD_RUN_LEASE_MS },
    ordering: { leaseMs: DEAD_RUN_LEASE_MS },
    drains: { claimStaleAfterMs: DEAD_RUN_LEASE_MS },
  });
}

/** How long a killed run's leases hold on the SQLite file. */
const DEAD_RUN_LEASE_MS = 2_000;

/** The example's wiring: database, bus, service. */
export interface App {
  readonly dataSource: DataSource;
  readonly bus: EventBus;
  readonly service: RecordService;
  /** The event-sourced view counts (views.ts); its writer runs once `views.start()` is called. */
  readonly views: EventStore;
  /** The SQLite file the app runs on, or `undefined` on PostgreSQL. */
  readonly sqliteFile: string | undefined;
  close(): Promise<void>;
}

/**
 * Builds the app from the environment: PostgreSQL when `DATABASE_URL` is set
 * (its tables in the schema {@link demoSchema}, created if missing), else the
 * SQLite file {@link demoSqliteFile} (WAL, created if missing, kept as it is
 * if there); Redis + BullMQ when `REDIS_URL` is set, else the SQL transport
 * on that same database, so each unit of work writes its events in its own
 * transaction.
 */
export async function createApp(
  env: NodeJS.ProcessEnv = process.env,
  onPublished?: (events: readonly Event[]) => void,
): Promise<App> {
  const schema = demoSchema(env);
  const sqliteFile = demoSqliteFile(env);
  const dataSource = new DataSource(
    sqliteFile === undefined
      ? { type: 'postgres', url: env.DATABASE_URL, schema, entities: ENTITIES }
      : { type: 'better-sqlite3', database: sqliteFile, enableWAL: true, entities: ENTITIES },
  );
  await dataSource.initialize();
  if (sqliteFile === undefined) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await dataSource.synchronize();
  // Redis when REDIS_URL (or REDIS_CLUSTER_NODES) is set, else the SQL transport: the bus's tables beside the app's.
  const named = transportFromEnv({ env, dataSource });
  const bus = createEventBus({
    events: EVENTS,
    handlers: eventHandlers(),
    dataSource,
    config: demoConfig(env),
    transport: named.name === 'redis' || named.name === 'sql' ? named : sqlTransport({ dataSource }),
    logger: silentLogger,
    ...(onPublished ? { onPublished } : {}),
  });
  const views = createEventStore({ dataSource, models: VIEW_MODELS, bus });
  const service = new RecordService(new UnitOfWorkManager({ bus }), views);
  return {
    dataSource,
    bus,
    service,
    views,
    sqliteFile,
    close: async () => {
      await views.close();
      await bus.close();
      await dataSource.destroy();
    },
  };
}
