import { type EntityManager, In, type ObjectLiteral } from 'typeorm';
import type { RowKey } from './reducer-result.js';
import type { ResolvedModel } from './resolved-model.js';

/** A row as the batch knows it: its values, or `null` when it does not exist. */
type Known = ObjectLiteral | null;

/** A write not yet sent: the row to upsert, or `null` to delete. */
interface PendingWrite {
  readonly key: ObjectLiteral;
  readonly row: ObjectLiteral | null;
}

/**
 * One model's rows as the writer's batch knows them: read once from the
 * database (or prefetched), then kept up to date by the apply step, whose
 * writes wait here until the batch flushes them in a few multi-row
 * statements. Reads of a row the cache knows cost no round trip.
 */
export class RowCache {
  private readonly known = new Map<string, Known>();
  private readonly pending = new Map<string, PendingWrite>();
  private readonly columns: ReadonlySet<string>;

  constructor(readonly model: ResolvedModel) {
    this.columns = new Set(model.metadata.columns.map((c) => c.propertyName));
  }

  /** The row's key as a string. */
  id(key: RowKey<ObjectLiteral>): string {
    // As strings: a bigint key comes back from PostgreSQL as "5" when the reducer said 5.
    if (typeof key !== 'object') return JSON.stringify([String(key)]);
    return JSON.stringify(this.model.primary.map((column) => String(key[column])));
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

  /** The known row (a copy), `null` when absent; only after {@link load}. */
  peek(key: RowKey<ObjectLiteral>): ObjectLiteral | null {
    const row = this.known.get(this.id(key));
    return row === undefined || row === null ? null : { ...row };
  }

  /** Reads the rows of `keys` the cache does not know, in one query. */
  async load(manager: EntityManager, keys: readonly RowKey<ObjectLiteral>[]): Promise<void> {
    const missing = new Map<string, ObjectLiteral>();
    for (const key of keys) {
      const id = this.id(key);
      if (!this.known.has(id)) missing.set(id, this.where(key));
    }
    if (missing.size === 0) return;
    const repo = manager.getRepository(this.model.metadata.target);
    const wheres = [...missing.values()];
    const primary = this.model.primary[0] as string;
    const rows =
      this.model.primary.length === 1
        ? await repo.findBy({ [primary]: In(wheres.map((w) => w[primary])) })
        : await repo.findBy(wheres);
    for (const id of missing.keys()) this.known.set(id, null);
    for (const row of rows) this.known.set(this.id(row), { ...row });
  }

  /** Sets the row of `key` to `row` (`null` deletes it), to be written at the next flush. */
  write(key: RowKey<ObjectLiteral>, row: ObjectLiteral | null): void {
    const id = this.id(key);
    this.known.set(id, row === null ? null : { ...row });
    this.pending.set(id, { key: this.where(key), row: row === null ? null : { ...row } });
  }

  /** Whether writes wait. */
  get dirty(): boolean {
    return this.pending.size > 0;
  }

  /**
   * Sends the waiting writes: one DELETE for removed rows, one upsert per
   * shape of row. Rows without every column are forgotten afterwards (the
   * database filled in their defaults), so the next read fetches them.
   */
  async flush(manager: EntityManager): Promise<void> {
    if (this.pending.size === 0) return;
    const writes = [...this.pending.entries()];
    this.pending.clear();
    const target = this.model.metadata.target;
    const deletes = writes.filter(([, w]) => w.row === null).map(([, w]) => w.key);
    if (deletes.length > 0) {
      const primary = this.model.primary[0] as string;
      if (this.model.primary.length === 1) {
        await manager.getRepository(target).delete({ [primary]: In(deletes.map((k) => k[primary])) });
      } else {
        for (const key of deletes) await manager.getRepository(target).delete(key);
      }
    }
    const shapes = new Map<string, ObjectLiteral[]>();
    for (const [id, write] of writes) {
      if (write.row === null) continue;
      const shape = Object.keys(write.row)
        .filter((k) => this.columns.has(k))
        .sort()
        .join(',');
      const list = shapes.get(shape) ?? [];
      list.push(write.row);
      shapes.set(shape, list);
      if (shape.split(',').length < this.columns.size) this.known.delete(id);
    }
    const byProperty = new Map(this.model.metadata.columns.map((c) => [c.propertyName, c.databaseName]));
    const conflict = this.model.primary.map((p) => byProperty.get(p) as string);
    for (const [shape, rows] of shapes) {
      const overwrite = shape
        .split(',')
        .filter((p) => !this.model.primary.includes(p))
        .map((p) => byProperty.get(p) as string);
      const insert = manager.createQueryBuilder().insert().into(target).values(rows);
      if (overwrite.length > 0) insert.orUpdate(overwrite, conflict);
      else insert.orIgnore();
      await insert.updateEntity(false).execute();
    }
  }

  /** Forgets every row (something wrote the table behind the cache's back). */
  clear(): void {
    this.known.clear();
  }
}
