import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_operator_actions` (PostgreSQL and SQLite): each bus's
 * audit trail of operator actions, the newest `audit.maxEntries` kept. Part
 * of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlOperatorActions1764300000011 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlOperatorActions1764300000011';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_operator_actions',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'bus', type: 'varchar', length: '255' },
          { name: 'at', type: 'bigint' },
          { name: 'actor', type: 'varchar', length: '255' },
          { name: 'source', type: 'varchar', length: '16' },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'target', type: 'text' },
          { name: 'count', type: 'integer', isNullable: true },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_operator_actions',
      new TableIndex({ name: 'commitbus_operator_actions_bus', columnNames: ['bus', 'id'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_operator_actions', true);
  }
}
