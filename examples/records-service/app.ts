import 'reflect-metadata';
import { DataSource } from 'typeorm';
import {
  createEventBus,
  type Event,
  type EventBus,
  loadConfigFromEnv,
  silentLogger,
  UnitOfWorkManager,
} from '../../src/index.js';
import { ENTITIES } from './entities.js';
import { EVENTS } from './events.js';
import { eventHandlers } from './handlers.js';
import { RecordService } from './record.service.js';

/** The example's wiring: database, bus, service. */
export interface App {
  readonly dataSource: DataSource;
  readonly bus: EventBus;
  readonly service: RecordService;
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
    config: loadConfigFromEnv(env, { prefix: env.COMMITBUS_PREFIX ?? 'commitbus-demo' }),
    logger: silentLogger,
    ...(onPublished ? { onPublished } : {}),
  });
  const service = new RecordService(new UnitOfWorkManager({ bus }));
  return {
    dataSource,
    bus,
    service,
    close: async () => {
      await bus.close();
      await dataSource.destroy();
    },
  };
}
