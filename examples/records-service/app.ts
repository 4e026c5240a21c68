import 'reflect-metadata';
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

/** The example's bus configuration: from the environment, its keys under `commitbus-demo` by default. */
export function demoConfig(env: NodeJS.ProcessEnv = process.env): ResolvedCommitbusOptions {
  return loadConfigFromEnv(env, {
    redis: { prefix: env.COMMITBUS_REDIS_PREFIX ?? env.COMMITBUS_PREFIX ?? 'commitbus-demo' },
  });
}

/** The example's wiring: database, bus, service. */
export interface App {
  readonly dataSource: DataSource;
  readonly bus: EventBus;
  readonly service: RecordService;
  /** The event-sourced view counts (views.ts); its writer runs once `views.start()` is called. */
  readonly views: EventStore;
  close(): Promise<void>;
}

/**
 * Builds the app from the environment: PostgreSQL when `DATABASE_URL` is set
 * (its tables in the schema {@link demoSchema}, created if missing; else SQLite
 * in memory), Redis + BullMQ when `REDIS_URL` is set (else the in-process
 * transport).
 */
export async function createApp(
  env: NodeJS.ProcessEnv = process.env,
  onPublished?: (events: readonly Event[]) => void,
): Promise<App> {
  const schema = demoSchema(env);
  const dataSource = new DataSource(
    env.DATABASE_URL
      ? { type: 'postgres', url: env.DATABASE_URL, schema, entities: ENTITIES }
      : { type: 'better-sqlite3', database: ':memory:', entities: ENTITIES },
  );
  await dataSource.initialize();
  if (env.DATABASE_URL) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await dataSource.synchronize();
  const bus = createEventBus({
    events: EVENTS,
    handlers: eventHandlers(dataSource),
    dataSource,
    config: demoConfig(env),
    // Redis when REDIS_URL (or REDIS_CLUSTER_NODES) is set, else in this process.
    transport: transportFromEnv({ env }),
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
    close: async () => {
      await views.close();
      await bus.close();
      await dataSource.destroy();
    },
  };
}
