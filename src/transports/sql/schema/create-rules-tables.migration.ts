import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates the SQL transport's scheduling tables (PostgreSQL and SQLite):
 * `commitbus_rules`, `commitbus_parked`, `commitbus_dropped` and
 * `commitbus_locks`. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlRules1764300000002 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlRules1764300000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    const bus = { name: 'bus', type: 'varchar', length: '255', isPrimary: true };
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_rules',
        columns: [
          bus,
          { name: 'rule_id', type: 'varchar', length: '512', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'target', type: 'text' },
          { name: 'since', type: 'bigint' },
        ],
      }),
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_parked',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'bus', type: 'varchar', length: '255' },
          { name: 'handler', type: 'varchar', length: '255' },
          { name: 'data', type: 'text' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_parked',
      new TableIndex({ name: 'commitbus_parked_handler', columnNames: ['bus', 'handler', 'id'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_dropped',
        columns: [
          bus,
          { name: 'handler', type: 'varchar', length: '255', isPrimary: true },
          { name: 'count', type: 'integer', default: 0 },
        ],
      }),
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_locks',
        columns: [
          bus,
          { name: 'name', type: 'varchar', length: '512', isPrimary: true },
          { name: 'holder', type: 'varchar', length: '64' },
          { name: 'until', type: 'bigint' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['commitbus_locks', 'commitbus_dropped', 'commitbus_parked', 'commitbus_rules'])
      await queryRunner.dropTable(table, true);
  }
}
