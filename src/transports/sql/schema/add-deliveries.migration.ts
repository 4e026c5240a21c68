import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * Adds the claim's lease token (`lease`) to `commitbus_events` and
 * `commitbus_jobs`, and the hand-out count (`deliveries`) to
 * `commitbus_jobs` (PostgreSQL and SQLite). Part of `COMMITBUS_MIGRATIONS`.
 */
export class AddCommitbusSqlDeliveries1764300000005 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'AddCommitbusSqlDeliveries1764300000005';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('commitbus_events', leaseColumn());
    await queryRunner.addColumns('commitbus_jobs', [
      leaseColumn(),
      new TableColumn({ name: 'deliveries', type: 'integer', default: 0 }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('commitbus_jobs', ['deliveries', 'lease']);
    await queryRunner.dropColumn('commitbus_events', 'lease');
  }
}

function leaseColumn(): TableColumn {
  return new TableColumn({ name: 'lease', type: 'varchar', length: '64', isNullable: true });
}
