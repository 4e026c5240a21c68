import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Creates `commitbus_events` and `commitbus_event_ids` (PostgreSQL and
 * SQLite), the SQL transport's event log and its dedupe window. Part of
 * `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlEvents1764300000000 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlEvents1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_events',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'bus', type: 'varchar', length: '255' },
          { name: 'event_id', type: 'varchar', length: '128' },
          { name: 'payload', type: 'text' },
          { name: 'deliver_at', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'locked_by', type: 'varchar', length: '255', isNullable: true },
          { name: 'locked_at', type: 'bigint', isNullable: true },
          { name: 'deliveries', type: 'integer', default: 0 },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_events',
      new TableIndex({ name: 'commitbus_events_claim', columnNames: ['bus', 'locked_at', 'id'] }),
    );
    await queryRunner.createIndex(
      'commitbus_events',
      new TableIndex({ name: 'commitbus_events_due', columnNames: ['bus', 'deliver_at'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_event_ids',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'event_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'expires_at', type: 'bigint' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'commitbus_event_ids',
      new TableIndex({ name: 'commitbus_event_ids_expires', columnNames: ['bus', 'expires_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_event_ids', true);
    await queryRunner.dropTable('commitbus_events', true);
  }
}
