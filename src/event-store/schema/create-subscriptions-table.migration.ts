import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Creates `commitbus_es_subscriptions`, the durable subscriptions'
 * checkpoints (PostgreSQL and SQLite). Part of `COMMITBUS_MIGRATIONS`; run it
 * with your own migrations.
 */
export class CreateCommitbusEsSubscriptions1764200000000 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusEsSubscriptions1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_es_subscriptions',
        columns: [
          { name: 'name', type: 'varchar', length: '128', isPrimary: true },
          { name: 'position', type: 'bigint' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer' },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'owner', type: 'varchar', length: '128', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_es_subscriptions', true);
  }
}
