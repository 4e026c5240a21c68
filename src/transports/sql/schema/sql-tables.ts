import type { EntitySchema, MigrationInterface } from 'typeorm';
import { CreateCommitbusSqlEvents1764300000000 } from './create-sql-events.migration.js';
import { SqlEventEntity, SqlEventIdEntity } from './sql-event.entity.js';

/**
 * The SQL transport's tables (each port's file beside it adds its own) and
 * the migrations creating them, oldest first; part of `COMMITBUS_ENTITIES`
 * and `COMMITBUS_MIGRATIONS`.
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeORM takes schemas of any row type
export const SQL_TRANSPORT_ENTITIES: readonly EntitySchema<any>[] = [SqlEventEntity, SqlEventIdEntity];

/** Migrations creating {@link SQL_TRANSPORT_ENTITIES}, oldest first. */
export const SQL_TRANSPORT_MIGRATIONS: readonly (new () => MigrationInterface)[] = [
  CreateCommitbusSqlEvents1764300000000,
];
