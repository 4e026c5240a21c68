import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose `id` comes from a PostgreSQL sequence of `integer` (2^31 - 1 values). */
const SEQUENCED = ['commitbus_events', 'commitbus_parked'];

/**
 * Lets the id sequences of `commitbus_events` and `commitbus_parked` start
 * again at 1 after their last `integer` value (`ALTER SEQUENCE ... CYCLE`)
 * on PostgreSQL, instead of failing every insert from then on: at 1,000
 * events a second the events' ids run out in about 25 days. Their rows are
 * short-lived (deleted when handled), so an id comes round again long after
 * its row is gone; an id is only an append order and a row's handle. SQLite's
 * ids are 64-bit already: nothing to do there. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CycleCommitbusSqlIdSequences1764300000007 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CycleCommitbusSqlIdSequences1764300000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.setCycle(queryRunner, 'CYCLE');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.setCycle(queryRunner, 'NO CYCLE');
  }

  private async setCycle(queryRunner: QueryRunner, how: 'CYCLE' | 'NO CYCLE'): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    const schema = (queryRunner.connection.options as { schema?: string }).schema;
    for (const table of SEQUENCED) {
      const qualified = schema === undefined || schema === '' ? table : `${schema}.${table}`;
      const [row] = (await queryRunner.query('SELECT pg_get_serial_sequence($1, $2) AS seq', [
        qualified,
        'id',
      ])) as { seq: string | null }[];
      if (row?.seq) await queryRunner.query(`ALTER SEQUENCE ${row.seq} ${how}`);
    }
  }
}
