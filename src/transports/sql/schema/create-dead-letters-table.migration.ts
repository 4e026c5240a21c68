import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_dead_letters` (PostgreSQL and SQLite), the SQL
 * transport's dead-letter store. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlDeadLetters1764300000003 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlDeadLetters1764300000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_dead_letters',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'id', type: 'varchar', length: '512', isPrimary: true },
          { name: 'dead_at', type: 'bigint' },
          { name: 'handler', type: 'varchar', length: '255', isNullable: true },
          { name: 'handling_key', type: 'varchar', length: '255', isNullable: true },
          { name: 'event_id', type: 'varchar', length: '255', isNullable: true },
          { name: 'kind', type: 'varchar', length: '32', isNullable: true },
          { name: 'reason', type: 'varchar', length: '32', isNullable: true },
          { name: 'data', type: 'text' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_dead_letters',
      new TableIndex({ name: 'commitbus_dead_letters_dead_at', columnNames: ['bus', 'dead_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_dead_letters', true);
  }
}
