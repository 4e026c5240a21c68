import { type MigrationInterface, type QueryRunner, Table, TableColumn } from 'typeorm';
import type { DeadLetterKind, DeadLetterReason } from '../../../dead-letters/dead-letter.js';
import { groupOf } from '../../../dead-letters/dead-letter-groups.js';

/**
 * Adds the dead letters' counts (PostgreSQL and SQLite): the table
 * `commitbus_dead_letter_counts` and the column `count_group` of
 * `commitbus_dead_letters` (the group a letter is counted in), and counts the
 * letters already stored (one statement per group). Part of `COMMITBUS_MIGRATIONS`.
 */
export class AddCommitbusSqlDeadLetterCounts1764300000009 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'AddCommitbusSqlDeadLetterCounts1764300000009';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_dead_letter_counts',
        columns: [
          { name: 'bus', type: 'varchar', length: '255', isPrimary: true },
          { name: 'grp', type: 'varchar', length: '600', isPrimary: true },
          { name: 'count', type: 'integer', default: 0 },
        ],
      }),
      true,
    );
    await queryRunner.addColumn(
      'commitbus_dead_letters',
      new TableColumn({ name: 'count_group', type: 'varchar', length: '600', isNullable: true }),
    );
    await this.countStored(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('commitbus_dead_letters', 'count_group');
    await queryRunner.dropTable('commitbus_dead_letter_counts', true);
  }

  private async countStored(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const p = (i: number) => (postgres ? `$${i}` : '?');
    const schema = postgres ? (queryRunner.connection.options as { schema?: string }).schema : undefined;
    const table = (name: string) => (schema === undefined || schema === '' ? name : `${schema}.${name}`);
    const [letters, counts] = [table('commitbus_dead_letters'), table('commitbus_dead_letter_counts')];
    const groups = (await queryRunner.query(
      `SELECT bus, handler, kind, reason, COUNT(*) AS n FROM ${letters}
       WHERE kind IS NOT NULL AND reason IS NOT NULL GROUP BY bus, handler, kind, reason`,
    )) as {
      bus: string;
      handler: string | null;
      kind: DeadLetterKind;
      reason: DeadLetterReason;
      n: number;
    }[];
    for (const g of groups) {
      const grp = groupOf({ handler: g.handler ?? undefined, kind: g.kind, reason: g.reason });
      const handler = g.handler === null ? 'handler IS NULL' : `handler = ${p(5)}`;
      await queryRunner.query(
        `UPDATE ${letters} SET count_group = ${p(1)}
         WHERE bus = ${p(2)} AND kind = ${p(3)} AND reason = ${p(4)} AND ${handler}`,
        [grp, g.bus, g.kind, g.reason, ...(g.handler === null ? [] : [g.handler])],
      );
      await queryRunner.query(`INSERT INTO ${counts} (bus, grp, count) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, [
        g.bus,
        grp,
        Number(g.n),
      ]);
    }
  }
}
