import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Creates `commitbus_order_keys` (PostgreSQL and SQLite). Part of
 * `COMMITBUS_MIGRATIONS`; run it with your own migrations.
 */
export class CreateCommitbusOrderKeys1763900000000 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusOrderKeys1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_order_keys',
        columns: [
          { name: 'order_key', type: 'varchar', length: '512', isPrimary: true },
          { name: 'last_position', type: 'bigint' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_order_keys', true);
  }
}
