import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Creates `commitbus_workers` (PostgreSQL and SQLite): each worker's last
 * beat, one row per bus and worker, replaced at every beat and removed
 * when the worker leaves or its beats have long stopped. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlWorkers1764300000008 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlWorkers1764300000008';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_workers',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'id', type: 'varchar', length: '255', isPrimary: true },
          { name: 'host', type: 'varchar', length: '255' },
          { name: 'pid', type: 'integer' },
          { name: 'version', type: 'varchar', length: '64' },
          { name: 'transport', type: 'varchar', length: '64' },
          { name: 'concurrency', type: 'integer' },
          { name: 'busy', type: 'integer' },
          { name: 'started_at', type: 'bigint' },
          { name: 'last_beat_at', type: 'bigint' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_workers', true);
  }
}
