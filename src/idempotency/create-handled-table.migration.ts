import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_handled` (PostgreSQL and SQLite), where idempotent
 * handlers record their completions. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusHandled1763700000001 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusHandled1763700000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_handled',
        columns: [
          { name: 'event_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'handler', type: 'varchar', length: '255', isPrimary: true },
          { name: 'handled_at', type: 'bigint' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_handled',
      new TableIndex({ name: 'commitbus_handled_handled_at', columnNames: ['handled_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_handled', true);
  }
}
