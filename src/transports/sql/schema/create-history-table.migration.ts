import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Creates `commitbus_history` (PostgreSQL and SQLite): each bus's counts
 * per minute, one row per bus and minute, added into by every process and
 * kept for 24 hours. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlHistory1764300000010 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlHistory1764300000010';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_history',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'minute', type: 'bigint', isPrimary: true },
          { name: 'published', type: 'bigint', default: 0 },
          { name: 'handled', type: 'bigint', default: 0 },
          { name: 'failed', type: 'bigint', default: 0 },
          { name: 'retried', type: 'bigint', default: 0 },
          { name: 'dead_lettered', type: 'bigint', default: 0 },
          { name: 'backlog', type: 'bigint', isNullable: true },
          { name: 'backlog_age_ms', type: 'bigint', isNullable: true },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_history', true);
  }
}
