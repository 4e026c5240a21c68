import type { EntityManager } from 'typeorm';
import type { ResolvedModel } from './resolved-model.js';
import type { StoreTables } from './store-tables.js';

/** How the writer keeps rows, given what else changes the models' tables. */
export interface CacheTuning {
  /** Models whose written rows are not kept: something else changes their tables. */
  readonly uncached: ReadonlySet<string>;
  /** Flush each event's writes before the next event, so cascades fire in event order. */
  readonly flushEachEvent: boolean;
  /** Why, for the log; empty when nothing was found. */
  readonly reasons: readonly string[];
}

const CASCADING = new Set(['CASCADE', 'SET NULL', 'SET DEFAULT']);

/**
 * Looks in the database for what changes the models' tables besides the
 * store's own writes: triggers on them, and foreign keys that cascade (or
 * set null or a default) to or from them. Such a model's written rows are
 * read back rather than kept, and each event's writes are flushed before the
 * next event, so a cascade fires as it would one event at a time. A model
 * with `cache: false` is treated the same.
 */
export async function detectSideEffects(
  manager: EntityManager,
  tables: StoreTables,
  models: readonly ResolvedModel[],
): Promise<CacheTuning> {
  const names = new Map(models.map((m) => [m.metadata.tableName, m]));
  const uncached = new Set<string>();
  const reasons: string[] = [];
  let flushEachEvent = false;
  for (const m of models) {
    if (m.model.cache === false) {
      uncached.add(m.name);
      flushEachEvent = true;
      reasons.push(`model "${m.name}" has cache: false`);
    }
  }
  const { triggers, cascades } =
    tables.dialect === 'postgres' ? await onPostgres(manager, models) : await onSqlite(manager);
  const triggered = triggers.filter((t) => names.has(t));
  if (triggered.length > 0) {
    for (const m of models) uncached.add(m.name);
    flushEachEvent = true;
    reasons.push(`triggers on ${triggered.join(', ')}`);
  }
  for (const { child, parent } of cascades) {
    const childModel = names.get(child);
    if (childModel === undefined && !names.has(parent)) continue;
    flushEachEvent = true;
    if (childModel !== undefined) uncached.add(childModel.name);
    reasons.push(`a foreign key of ${child} to ${parent} cascades`);
  }
  return { uncached, flushEachEvent, reasons };
}

interface Found {
  readonly triggers: readonly string[];
  readonly cascades: readonly { child: string; parent: string }[];
}

async function onPostgres(manager: EntityManager, models: readonly ResolvedModel[]): Promise<Found> {
  const schema = (manager.connection.options as { schema?: string }).schema;
  const rels: { oid: number; name: string }[] = [];
  for (const m of models) {
    const found: { oid: number }[] = await manager.query(
      `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relname = $1 AND n.nspname = coalesce($2, current_schema())`,
      [m.metadata.tableName, m.metadata.schema ?? schema ?? null],
    );
    if (found[0] !== undefined) rels.push({ oid: Number(found[0].oid), name: m.metadata.tableName });
  }
  const oids = rels.map((r) => r.oid);
  const nameOf = (oid: unknown) => rels.find((r) => r.oid === Number(oid))?.name ?? `table ${String(oid)}`;
  const triggers: { rel: number }[] = await manager.query(
    'SELECT DISTINCT tgrelid::int AS rel FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = ANY($1::oid[])',
    [oids],
  );
  const keys: { child: number; parent: number }[] = await manager.query(
    `SELECT conrelid::int AS child, confrelid::int AS parent FROM pg_constraint
     WHERE contype = 'f' AND (confdeltype IN ('c', 'n', 'd') OR confupdtype IN ('c', 'n', 'd'))
       AND (conrelid = ANY($1::oid[]) OR confrelid = ANY($1::oid[]))`,
    [oids],
  );
  return {
    triggers: triggers.map((t) => nameOf(t.rel)),
    cascades: keys.map((k) => ({ child: nameOf(k.child), parent: nameOf(k.parent) })),
  };
}

async function onSqlite(manager: EntityManager): Promise<Found> {
  const triggers: { tbl_name: string }[] = await manager.query(
    `SELECT tbl_name FROM sqlite_master WHERE type = 'trigger'`,
  );
  const all: { name: string }[] = await manager.query(`SELECT name FROM sqlite_master WHERE type = 'table'`);
  const cascades: { child: string; parent: string }[] = [];
  for (const { name } of all) {
    const keys: { table: string; on_update: string; on_delete: string }[] = await manager.query(
      `PRAGMA foreign_key_list("${name.replaceAll('"', '""')}")`,
    );
    for (const key of keys) {
      if (CASCADING.has(key.on_delete) || CASCADING.has(key.on_update))
        cascades.push({ child: name, parent: key.table });
    }
  }
  return { triggers: triggers.map((t) => t.tbl_name), cascades };
}
