import 'reflect-metadata';
import { DataSource } from 'typeorm';
import {
  createEventBus,
  createEventStore,
  type Event,
  type EventBus,
  type EventStore,
  loadConfigFromEnv,
  silentLogger,
  UnitOfWorkManager,
} from '../../src/index.js';
import { ENTITIES } from './entities.js';
import { EVENTS } from './events.js';
import { eventHandlers } from './handlers.js';
import { RecordService } from './record.service.js';
import { VIEW_MODELS } from './views.js';

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
 * (else SQLite in memory), Redis + BullMQ when `REDIS_URL` is set (else the
 * in-process transport).
 */
export async function createApp(
  env: NodeJS.ProcessEnv = process.env,
  onPublished?: (events: readonly Event[]) => void,
): Promise<App> {
  const dataSource = new DataSource(
    env.DATABASE_URL
      ? { type: 'postgres', url: env.DATABASE_URL, entities: ENTITIES, synchronize: true }
      : { type: 'better-sqlite3', database: ':memory:', entities: ENTITIES, synchronize: true },
  );
  await dataSource.initialize();
  const bus = createEventBus({
    events: EVENTS,
    handlers: eventHandlers(dataSource),
    dataSource,
    config: loadConfigFromEnv(env, {
      redis: { prefix: env.COMMITBUS_REDIS_PREFIX ?? env.COMMITBUS_PREFIX ?? 'commitbus-demo' },
    }),
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
