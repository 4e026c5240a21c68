import type { DataSource, EntityManager } from 'typeorm';
import { EventStoreNotConfiguredError } from './errors/event-store-not-configured.error.js';
import { StoreEventRowEntity } from './schema/store-event-row.entity.js';
import { StoreStateRowEntity } from './schema/store-state-row.entity.js';

/** The databases the event store runs on. */
export type StoreDialect = 'postgres' | 'sqlite';

/** The state row dispatchers take versions from. */
export const QUEUE_ROW = 'queue';
/** The state row the writer moves as it handles events, and leases (SQLite). */
export const WRITER_ROW = 'writer';

/**
 * The event store's two tables on one DataSource: their quoted names and the
 * dialect's parameter style. The hot paths use plain SQL through the
 * transaction's manager; everything else goes through TypeORM.
 */
export class StoreTables {
  /** `postgres` or `sqlite`. */
  readonly dialect: StoreDialect;
  /** Quoted (schema-qualified) name of `commitbus_es_events`. */
  readonly events: string;
  /** Quoted (schema-qualified) name of `commitbus_es_state`. */
  readonly state: string;
  /** The events table's path (`schema.table`), naming the writer lock. */
  readonly path: string;

  constructor(readonly dataSource: DataSource) {
    const type = dataSource.options.type;
    if (type === 'postgres') this.dialect = 'postgres';
    else if (type === 'better-sqlite3') this.dialect = 'sqlite';
    else
      throw new EventStoreNotConfiguredError(
        `its DataSource is "${type}", and it runs on PostgreSQL ("postgres") or SQLite ("better-sqlite3")`,
      );
    if (!dataSource.hasMetadata(StoreEventRowEntity) || !dataSource.hasMetadata(StoreStateRowEntity)) {
      throw new EventStoreNotConfiguredError(
        'its DataSource has no commitbus_es_events and commitbus_es_state entities',
      );
    }
    const quote = (path: string) =>
      path
        .split('.')
        .map((part) => dataSource.driver.escape(part))
        .join('.');
    this.path = dataSource.getMetadata(StoreEventRowEntity).tablePath;
    this.events = quote(this.path);
    this.state = quote(dataSource.getMetadata(StoreStateRowEntity).tablePath);
  }

  /** The `n`th (1-based) query parameter. */
  p(n: number): string {
    return this.dialect === 'postgres' ? `$${n}` : '?';
  }

  /** Runs `sql` with `params` on `manager` and returns its rows. */
  async rows<R>(manager: EntityManager, sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const out: unknown = await manager.query(sql, [...params]);
    // A PostgreSQL UPDATE ... RETURNING comes back as [rows, count].
    if (
      this.dialect === 'postgres' &&
      Array.isArray(out) &&
      out.length === 2 &&
      Array.isArray(out[0]) &&
      typeof out[1] === 'number'
    ) {
      return out[0] as R[];
    }
    return Array.isArray(out) ? (out as R[]) : [];
  }
}
