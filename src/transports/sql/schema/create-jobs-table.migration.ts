import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_jobs` (PostgreSQL and SQLite), the SQL transport's
 * handler job queue. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlJobs1764300000001 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlJobs1764300000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_jobs',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'job_id', type: 'varchar', length: '512', isPrimary: true },
          { name: 'handler', type: 'varchar', length: '255' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'data', type: 'text' },
          { name: 'run_at', type: 'bigint' },
          { name: 'attempts_made', type: 'integer', default: 0 },
          { name: 'locked_by', type: 'varchar', length: '255', isNullable: true },
          { name: 'locked_until', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_jobs',
      new TableIndex({ name: 'commitbus_jobs_claim', columnNames: ['bus', 'run_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_jobs', true);
  }
}
