import { DataSource, type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { afterEach, beforeEach, describe } from 'vitest';
import { StoreEventRowEntity, StoreStateRowEntity } from '../../src/event-store/index.js';
import {
  COMMITBUS_ENTITIES,
  type ConcreteEventClass,
  createEventBus,
  createEventStore,
  type Event,
  type EventBus,
  type EventHandlersConfig,
  type EventStore,
  type EventStoreOptions,
  silentLogger,
  UnitOfWorkManager,
} from '../../src/index.js';
import { withTransactionGate } from '../../src/uow/transaction-gate.js';
import { ITEM_ENTITIES } from '../fixtures/es-items.js';
import { LEDGER_ENTITIES } from '../fixtures/ledger-models.js';
import { closeSchema, openSchema } from './postgres.js';
import { type LogLine, recordingLogger } from './recording-logger.js';

/** The databases the event store runs on. */
export type Dialect = 'postgres' | 'sqlite';

/** What {@link StoreBed.create} takes: the store's options without the DataSource, fast by default. */
export type BedStoreOptions = Omit<EventStoreOptions, 'dataSource'>;

/** A queue/history row as stored (JSON columns parsed), for assertions on the table itself. */
export interface EventRow {
  v: number;
  type: string;
  status: string;
  data: unknown;
  result: unknown;
  events: unknown;
  error: { step: string; model?: string; path: string[]; name: string; message: string } | null;
  attempts: number;
  important: boolean;
  audit: { action: string; by?: string; reason?: string; error?: unknown; previousData?: unknown }[];
}

/**
 * Small waits for tests: the writer polls every 10 ms and retries a failed
 * event after 20 ms (at most 100 ms); a test about halting raises
 * `retryDelayMs` when it needs the store to stay put.
 */
const FAST: Partial<BedStoreOptions> = {
  pollMs: 10,
  takeoverMs: 20,
  retryDelayMs: 20,
  maxRetryDelayMs: 100,
};

interface Opened {
  readonly dataSource: DataSource;
  readonly stores: EventStore[];
  readonly buses: EventBus[];
  readonly logs: LogLine[];
}

/**
 * A fresh database per test (a PostgreSQL schema or an in-memory SQLite
 * database, with the ledger and item fixtures' tables and commitbus's own),
 * and factories for stores and buses on it; everything it made is closed
 * after the test.
 */
export class StoreBed {
  private opened: Opened | undefined;

  constructor(
    /** `postgres` or `sqlite`. */
    readonly dialect: Dialect,
    private readonly schema: string,
  ) {}

  /** The test's PostgreSQL schema (unused on SQLite). */
  get schemaName(): string {
    return this.schema;
  }

  /** The test's DataSource. */
  get dataSource(): DataSource {
    return this.current().dataSource;
  }

  /** What the stores logged (they log to the bed, not the console). */
  get logs(): readonly LogLine[] {
    return this.current().logs;
  }

  /** A store on the test's DataSource, not started (a dispatcher only, until `start()`). */
  create(options: BedStoreOptions): EventStore {
    const { dataSource, stores, logs } = this.current();
    const logger = recordingLogger(logs);
    const store = createEventStore({ ...FAST, logger, ...options, dataSource });
    stores.push(store);
    return store;
  }

  /** A started store: it competes to be the writer at once. */
  async start(options: BedStoreOptions): Promise<EventStore> {
    const store = this.create(options);
    await store.start();
    return store;
  }

  /**
   * An in-process bus (memory transport) knowing `events`; `published`
   * collects what it published. With `handlers`, a worker runs them.
   */
  async bus(
    events: readonly ConcreteEventClass[],
    handlers?: EventHandlersConfig,
  ): Promise<{ bus: EventBus; published: Event[] }> {
    const published: Event[] = [];
    const bus = createEventBus({
      events,
      ...(handlers === undefined ? {} : { handlers }),
      config: { scheduleEveryMs: 0, blockMs: 20 },
      logger: silentLogger,
      onPublished: (list) => published.push(...list),
    });
    this.current().buses.push(bus);
    if (handlers !== undefined) await bus.startWorker({ handleSignals: false });
    return { bus, published };
  }

  /** A unit-of-work manager on the test's DataSource and `bus`. */
  uows(bus: EventBus): UnitOfWorkManager {
    return new UnitOfWorkManager({ dataSource: this.dataSource, bus });
  }

  /** Runs `fn` between transactions (on SQLite the one connection may be inside the writer's). */
  read<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    const { dataSource } = this.current();
    return withTransactionGate(dataSource, () => fn(dataSource.manager));
  }

  /** Every row of `entity`'s table, ordered by its primary key. */
  rows<T extends ObjectLiteral>(entity: EntityTarget<T>): Promise<T[]> {
    const metadata = this.dataSource.getMetadata(entity);
    const order = Object.fromEntries(metadata.primaryColumns.map((c) => [c.propertyName, 'ASC' as const]));
    return this.read((manager) => manager.getRepository(entity).find({ order: order as never }));
  }

  /** Every row of the event store's queue/history table, by `v`. */
  async events(): Promise<EventRow[]> {
    const rows = await this.rows(StoreEventRowEntity);
    const parse = (text: string | null) => (text === null ? null : JSON.parse(text));
    return rows.map((r) => ({
      v: r.v,
      type: r.type,
      status: r.status,
      data: parse(r.data),
      result: parse(r.result),
      events: parse(r.events),
      error: parse(r.error),
      attempts: r.attempts,
      important: r.important === true || (r.important as unknown) === 1,
      audit: parse(r.audit) ?? [],
    }));
  }

  /** The state rows: the last version queued and the last handled. */
  async versions(): Promise<{ queued: number; handled: number }> {
    const rows = await this.rows(StoreStateRowEntity);
    const of = (id: string) => rows.find((r) => r.id === id);
    return { queued: of('queue')?.queued ?? 0, handled: of('writer')?.handled ?? 0 };
  }

  /** @internal Opens the test's database. */
  async open(): Promise<void> {
    const entities = [...LEDGER_ENTITIES, ...ITEM_ENTITIES];
    const dataSource =
      this.dialect === 'postgres'
        ? await openSchema(this.schema, entities)
        : await new DataSource({
            type: 'better-sqlite3',
            database: ':memory:',
            entities: [...entities, ...COMMITBUS_ENTITIES],
            synchronize: true,
          }).initialize();
    this.opened = { dataSource, stores: [], buses: [], logs: [] };
  }

  /** @internal Closes stores, then buses, then the database (dropping the schema). */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened === undefined) return;
    try {
      await Promise.all(opened.stores.map((store) => store.close()));
      await Promise.all(opened.buses.map((bus) => bus.close()));
    } finally {
      if (this.dialect === 'postgres') await closeSchema(opened.dataSource);
      else await opened.dataSource.destroy();
    }
  }

  private current(): Opened {
    if (this.opened === undefined) throw new Error('the store bed is used outside a test');
    return this.opened;
  }
}

/**
 * Declares the tests of `fn` twice: on PostgreSQL (schema
 * `commitbus_test_es_<name>_<pid>`, so give each file its own `name`) and
 * on SQLite in memory. Each test gets a fresh database through `bed`.
 */
export function describeOnBothDatabases(name: string, fn: (bed: StoreBed) => void): void {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  for (const dialect of ['postgres', 'sqlite'] as const) {
    describe(`${name} (${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'})`, () => {
      // The process id too: the same file run from two worktrees at once must not share a schema.
      const bed = new StoreBed(dialect, `commitbus_test_es_${slug}_${process.pid}`);
      beforeEach(() => bed.open());
      afterEach(() => bed.close());
      fn(bed);
    });
  }
}
