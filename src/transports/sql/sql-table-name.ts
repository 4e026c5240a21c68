import type { EntitySchema } from 'typeorm';
import type { SqlDb } from './sql-db.js';

/**
 * The name to write in statements for `entity`'s table, qualified by the
 * DataSource's schema when it has one (PostgreSQL's `schema` option), so
 * raw statements reach the tables `synchronize` and the migrations made.
 * Read once the DataSource is initialized.
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeORM takes schemas of any row type
export function sqlTableName(db: SqlDb, entity: EntitySchema<any>): string {
  return db.dataSource.getMetadata(entity).tablePath;
}
