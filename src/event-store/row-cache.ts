import { type EntityManager, In, type ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { type ReadBackKind, readBackKind, readsBackAs } from './read-back.js';
import type { RowKey } from './reducer-result.js';
import type { ResolvedModel } from './resolved-model.js';
import type { StoreDialect } from './store-tables.js';

/** A write not yet sent: the row to upsert, or `null` to delete. */
interface PendingWrite {
  readonly key: ObjectLiteral;
  readonly row: ObjectLiteral | null;
}

/**
 * One table's rows as the writer's batch knows them. A row read from the
 * database is kept as read. A row the apply step writes is kept only when it
 * is whole and each value is what the database would give back for its
 * column (a string for text, an integer for an integer column...); any other
 * written row is forgotten, so the next read flushes and reads it back. So a
 * read answers the same whether the batch ends before it or not. Writes wait
 * here until the batch flushes them: deletes first, then one upsert per shape
 * of row.
 */
export class RowCache {
  private readonly known = new Map<string, ObjectLiteral | null>();
  private readonly pending = new Map<string, PendingWrite>();
  // Keys deleted since the last flush: deleted before they are written again, as the events did.
  private readonly deleted = new Set<string>();
  private readonly kinds: ReadonlyMap<string, { kind: ReadBackKind | undefined; nullable: boolean }>;
  private readonly lowerCaseKey: readonly boolean[];

  /**
   * @param model - a model owning the table (its name is not used: models sharing an entity share the cache).
   * @param cacheWrites - false keeps no written row (the table changes behind the store's back: cascades, triggers).
   */
  constructor(
    readonly model: ResolvedModel,
    dialect: StoreDialect,
    readonly cacheWrites = true,
  ) {
    this.kinds = new Map(
      model.metadata.columns.map((c: ColumnMetadata) => [
        c.propertyName,
        { kind: readBackKind(c, dialect), nullable: c.isNullable },
      ]),
    );
    const byProperty = new Map(model.metadata.columns.map((c) => [c.propertyName, c]));
    // PostgreSQL compares uuids regardless of case and gives them back in lower case.
    this.lowerCaseKey = model.primary.map(
      (p) => dialect === 'postgres' && byProperty.get(p)?.type === 'uuid',
    );
  }

  /** The row's key as a string. */
  id(key: RowKey<ObjectLiteral>): string {
    const values = typeof key !== 'object' ? [key] : this.model.primary.map((column) => key[column]);
    // As strings: a bigint key comes back from PostgreSQL as "5" when the reducer said 5.
    return JSON.stringify(values.map((v, i) => (this.lowerCaseKey[i] ? String(v).toLowerCase() : String(v))));
  }

  /** The primary columns of `key` as an object. */
  where(key: RowKey<ObjectLiteral>): ObjectLiteral {
    if (typeof key !== 'object') return { [this.model.primary[0] as string]: key };
    return Object.fromEntries(this.model.primary.map((column) => [column, key[column]]));
  }

  /** Whether the cache knows the row (present or absent). */
  knows(key: RowKey<ObjectLiteral>): boolean {
    return this.known.has(this.id(key));
  }

  /** Whether reading any of `keys` needs the waiting writes flushed first (written rows it does not keep). */
  needsFlush(keys: readonly RowKey<ObjectLiteral>[]): boolean {
    return keys.some((key) => {
      const id = this.id(key);
      return this.pending.has(id) && !this.known.has(id);
    });
  }

  /** A copy of the known row, `null` when absent (or unknown: ask {@link knows} first). */
  peek(key: RowKey<ObjectLiteral>): ObjectLiteral | null {
    const row = this.known.get(this.id(key));
    return row === undefined || row === null ? null : copy(row);
  }

  /** Reads the rows of `keys` the cache does not know, in one query (flush first when {@link needsFlush}). */
  async load(manager: EntityManager, keys: readonly RowKey<ObjectLiteral>[]): Promise<void> {
    const missing = new Map<string, ObjectLiteral>();
    for (const key of keys) {
      const id = this.id(key);
      if (!this.known.has(id)) missing.set(id, this.where(key));
    }
    if (missing.size === 0) return;
    const repo = manager.getRepository(this.model.metadata.target);
    const primary = this.model.primary[0] as string;
    const rows: ObjectLiteral[] = [];
    for (const wheres of chunks([...missing.values()], this.model.primary.length)) {
      rows.push(
        ...(this.model.primary.length === 1
          ? await repo.findBy({ [primary]: In(wheres.map((w) => w[primary])) })
          : await repo.findBy(wheres)),
      );
    }
    for (const id of missing.keys()) this.known.set(id, null);
    for (const row of rows) this.known.set(this.id(row), copy(row));
  }

  /** Sets the row of `key` to `row` (`null` deletes it), to be written at the next flush. */
  write(key: RowKey<ObjectLiteral>, row: ObjectLiteral | null): void {
    const id = this.id(key);
    if (row === null) this.deleted.add(id);
    this.pending.set(id, { key: this.where(key), row: row === null ? null : copy(row) });
    if (row === null || (this.cacheWrites && this.readsBackSame(row)))
      this.known.set(id, row === null ? null : copy(row));
    else this.known.delete(id);
  }

  /** Whether writes wait. */
  get dirty(): boolean {
    return this.pending.size > 0;
  }

  /** Sends the waiting writes: deletes first, then one upsert per shape of row. */
  async flush(manager: EntityManager): Promise<void> {
    if (this.pending.size === 0) return;
    const writes = [...this.pending.entries()];
    const deletes = [...this.deleted].map((id) => this.pending.get(id)?.key).filter((k) => k !== undefined);
    this.pending.clear();
    this.deleted.clear();
    const target = this.model.metadata.target;
    if (deletes.length > 0) {
      const primary = this.model.primary[0] as string;
      if (this.model.primary.length === 1) {
        for (const keys of chunks(deletes, 1))
          await manager.getRepository(target).delete({ [primary]: In(keys.map((k) => k[primary])) });
      } else {
        for (const key of deletes) await manager.getRepository(target).delete(key);
      }
    }
    const shapes = new Map<string, ObjectLiteral[]>();
    for (const [, write] of writes) {
      if (write.row === null) continue;
      const shape = Object.keys(write.row)
        .filter((k) => this.kinds.has(k))
        .sort()
        .join(',');
      const list = shapes.get(shape) ?? [];
      list.push(write.row);
      shapes.set(shape, list);
    }
    const byProperty = new Map(this.model.metadata.columns.map((c) => [c.propertyName, c.databaseName]));
    const conflict = this.model.primary.map((p) => byProperty.get(p) as string);
    for (const [shape, rows] of shapes) {
      const overwrite = shape
        .split(',')
        .filter((p) => !this.model.primary.includes(p))
        .map((p) => byProperty.get(p) as string);
      for (const part of chunks(rows, this.model.metadata.columns.length)) {
        const insert = manager.createQueryBuilder().insert().into(target).values(part);
        if (overwrite.length > 0) insert.orUpdate(overwrite, conflict);
        else insert.orIgnore();
        await insert.updateEntity(false).execute();
      }
    }
  }

  /** Forgets every row (something wrote the table behind the cache's back). */
  clear(): void {
    this.known.clear();
  }

  // Whole, and every value what its column gives back.
  private readsBackSame(row: ObjectLiteral): boolean {
    for (const [column, { kind, nullable }] of this.kinds) {
      if (!(column in row)) return false;
      const value = row[column];
      if (value === null ? !nullable : !readsBackAs(kind, value)) return false;
    }
    return true;
  }
}

// Rows with nested values (json columns) are copied deeply, so a reducer changing one changes nothing here.
function copy(row: ObjectLiteral): ObjectLiteral {
  for (const value of Object.values(row)) {
    if (typeof value === 'object' && value !== null) return structuredClone(row);
  }
  return { ...row };
}

// Parameters one statement may carry: PostgreSQL takes 65,535, SQLite 32,766.
const MAX_PARAMETERS = 30_000;

/** `items` in slices whose statement stays under {@link MAX_PARAMETERS}, at `perItem` parameters each. */
function chunks<T>(items: readonly T[], perItem: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, perItem)));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
