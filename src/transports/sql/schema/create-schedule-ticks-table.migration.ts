import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Creates `commitbus_schedule_ticks` (PostgreSQL and SQLite): the last
 * claimed tick of each schedule, one row per bus and schedule, which a
 * claim moves forward by compare-and-set. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlScheduleTicks1764300000006 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlScheduleTicks1764300000006';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_schedule_ticks',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'name', type: 'varchar', length: '255', isPrimary: true },
          { name: 'tick_at', type: 'bigint' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('commitbus_schedule_ticks', true);
  }
}
