import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_outbox` (PostgreSQL and SQLite). Part of
 * `COMMITBUS_MIGRATIONS`; run it with your own migrations.
 */
export class CreateCommitbusOutbox1763700000000 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusOutbox1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_outbox',
        columns: [
          { name: 'event_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'position', type: 'integer' },
          { name: 'handling_key', type: 'varchar', length: '255' },
          { name: 'payload', type: 'text' },
          { name: 'deliver_at', type: 'bigint', isNullable: true },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_outbox',
      new TableIndex({ name: 'commitbus_outbox_created_at', columnNames: ['created_at', 'position'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_outbox', true);
  }
}
