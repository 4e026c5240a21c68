import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { StoreDialect } from './store-tables.js';

/**
 * The JavaScript value a column gives back when read through TypeORM, for the
 * column types where that is certain: `string`, `lowercase` (a PostgreSQL
 * uuid), `integer`, `number`, `boolean`. `undefined` for the rest (dates,
 * json, bigint and decimals on PostgreSQL, columns with a transformer, ...):
 * a row written with such a column is read back before it is used again.
 */
export type ReadBackKind = 'string' | 'lowercase' | 'integer' | 'number' | 'boolean';

const STRING_TYPES = new Set([
  'varchar',
  'character varying',
  'text',
  'nvarchar',
  'citext',
  'tinytext',
  'mediumtext',
  'longtext',
  'enum',
  'simple-enum',
]);
const INTEGER_TYPES = new Set(['int', 'integer', 'int4', 'int2', 'smallint', 'tinyint', 'mediumint']);
// float4 on PostgreSQL keeps 24 bits: 1/3 comes back as 0.33333334. SQLite keeps every real in 64 bits.
const NUMBER_TYPES: Record<StoreDialect, ReadonlySet<string>> = {
  postgres: new Set(['float8', 'double precision']),
  sqlite: new Set(['float', 'float4', 'float8', 'double', 'double precision', 'real']),
};

/** What `column` gives back on `dialect`, when certain. */
export function readBackKind(column: ColumnMetadata, dialect: StoreDialect): ReadBackKind | undefined {
  if (column.transformer !== undefined) return undefined;
  const type =
    typeof column.type === 'string'
      ? column.type.toLowerCase()
      : column.type === String
        ? 'varchar'
        : column.type === Number
          ? 'integer'
          : column.type === Boolean
            ? 'boolean'
            : '';
  if (STRING_TYPES.has(type)) return 'string';
  if (type === 'uuid') return dialect === 'postgres' ? 'lowercase' : 'string';
  if (INTEGER_TYPES.has(type)) return 'integer';
  // better-sqlite3 gives a SQLite integer back as a number; pg gives an int8 back as a string.
  if ((type === 'bigint' || type === 'int8') && dialect === 'sqlite') return 'integer';
  if (NUMBER_TYPES[dialect].has(type)) return 'number';
  if (type === 'boolean' || type === 'bool') return 'boolean';
  return undefined;
}

/** Whether `value` is what a column of `kind` gives back after storing it. */
export function readsBackAs(kind: ReadBackKind | undefined, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'lowercase':
      return typeof value === 'string' && value === value.toLowerCase();
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return false;
  }
}
