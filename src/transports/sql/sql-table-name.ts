import type { EntitySchema } from 'typeorm';
import type { SqlDb } from './sql-db.js';

/**
 * The name to write in statements for `entity`'s table: its `tableName`,
 * qualified by the DataSource's schema as {@link SqlDb.table} does, so raw
 * statements reach the tables `synchronize` and the migrations made.
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeORM takes schemas of any row type
export function sqlTableName(db: SqlDb, entity: EntitySchema<any>): string {
  return db.table(entity.options.tableName ?? entity.options.name);
}
