import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** A nullable column of `commitbus_lanes`. */
const nullable = (name: string, type: 'bigint' | 'integer' | 'text') => ({ name, type, isNullable: true });

/** The partial indexes of `commitbus_lanes`: name suffix and the column each covers (with `bus`). */
const LANE_INDEXES: readonly [string, string][] = [
  ['ready', 'queued_at'],
  ['owner', 'owner'],
  ['retry', 'retry_at'],
  ['gap', 'gap_until'],
  ['halted', 'halted_at'],
  ['rebased', 'rebase_at'],
];

/**
 * Creates the SQL transport's ordering tables (PostgreSQL and SQLite):
 * `commitbus_lanes`, `commitbus_lane_events`, `commitbus_lane_workers` and
 * `commitbus_lane_counters`. Part of `COMMITBUS_MIGRATIONS`.
 */
export class CreateCommitbusSqlOrdering1764300000004 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'CreateCommitbusSqlOrdering1764300000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    const bus = { name: 'bus', type: 'varchar', length: '255', isPrimary: true };
    const lane = { name: 'lane', type: 'varchar', length: '1024', isPrimary: true };
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_lanes',
        columns: [
          bus,
          lane,
          { name: 'tail', type: 'bigint', default: 0 },
          { name: 'numbering', type: 'varchar', length: '16', isNullable: true },
          nullable('next_position', 'bigint'),
          nullable('last_seq', 'bigint'),
          { name: 'owner', type: 'varchar', length: '255', isNullable: true },
          ...['owned_at', 'queued_at', 'cur_position', 'cur_seq', 'cur_prev'].map((n) =>
            nullable(n, 'bigint'),
          ),
          nullable('cur_attempts', 'integer'),
          nullable('cur_failures', 'text'),
          nullable('cur_from', 'integer'),
          nullable('cur_skipped', 'text'),
          nullable('cur_deliveries', 'integer'),
          nullable('halt', 'text'),
          ...[
            'halted_at',
            'retry_at',
            'gap_position',
            'gap_since',
            'gap_until',
            'rebase_from',
            'rebase_to',
          ].map((n) => nullable(n, 'bigint')),
          { name: 'rebase_why', type: 'varchar', length: '16', isNullable: true },
          nullable('rebase_at', 'bigint'),
          nullable('skipped', 'text'),
        ],
      }),
      true,
    );
    for (const [suffix, column] of LANE_INDEXES) {
      await queryRunner.createIndex(
        'commitbus_lanes',
        new TableIndex({
          name: `commitbus_lanes_${suffix}`,
          columnNames: ['bus', column],
          where: `${column} IS NOT NULL`,
        }),
      );
    }
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_lane_events',
        columns: [
          bus,
          lane,
          { name: 'position', type: 'bigint', isPrimary: true },
          { name: 'payload', type: 'text' },
          nullable('seq', 'bigint'),
          nullable('prev', 'bigint'),
        ],
      }),
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_lane_workers',
        columns: [
          bus,
          { name: 'worker', type: 'varchar', length: '255', isPrimary: true },
          { name: 'lease_until', type: 'bigint' },
        ],
      }),
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'commitbus_lane_counters',
        columns: [
          bus,
          { name: 'seq', type: 'bigint', default: 0 },
          { name: 'rebases', type: 'bigint', default: 0 },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['commitbus_lane_counters', 'commitbus_lane_workers', 'commitbus_lane_events']) {
      await queryRunner.dropTable(table, true);
    }
    await queryRunner.dropTable('commitbus_lanes', true);
  }
}
