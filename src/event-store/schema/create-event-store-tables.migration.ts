import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_es_events` and `commitbus_es_state` (PostgreSQL and
 * SQLite). Part of `COMMITBUS_MIGRATIONS`; run it with your own migrations.
 */
export class CreateCommitbusEventStore1764100000000 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusEventStore1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_es_events',
        columns: [
          { name: 'v', type: 'bigint', isPrimary: true },
          { name: 'type', type: 'varchar', length: '255' },
          { name: 'ts', type: 'bigint' },
          { name: 'data', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'result', type: 'text', isNullable: true },
          { name: 'events', type: 'text', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'attempts', type: 'integer' },
          { name: 'important', type: 'boolean' },
          { name: 'audit', type: 'text', isNullable: true },
          { name: 'size', type: 'integer' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_es_events',
      new TableIndex({ name: 'commitbus_es_events_ts', columnNames: ['ts'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_es_state',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'queued', type: 'bigint' },
          { name: 'handled', type: 'bigint' },
          { name: 'writer', type: 'varchar', length: '128', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_es_state', true);
    await queryRunner.dropTable('commitbus_es_events', true);
  }
}
