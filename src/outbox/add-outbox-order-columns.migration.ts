import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * Adds `order_key` and `order_position` to `commitbus_outbox` (PostgreSQL and
 * SQLite): an ordered event's row keeps where it goes beside its payload.
 * Rows already there keep their data; those of ordered events written by an
 * earlier version (which kept the order key and position inside the payload's
 * envelope) get both columns filled from it. Part of `COMMITBUS_MIGRATIONS`.
 */
export class AddCommitbusOutboxOrder1764000000000 implements MigrationInterface {
  /** The migration's name in TypeORM's migrations table. */
  readonly name = 'AddCommitbusOutboxOrder1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('commitbus_outbox', [
      new TableColumn({ name: 'order_key', type: 'varchar', length: '512', isNullable: true }),
      new TableColumn({ name: 'order_position', type: 'integer', isNullable: true }),
    ]);
    const { driver } = queryRunner.connection;
    const { schema, tableName } = driver.parseTableName('commitbus_outbox');
    const table = [schema, tableName]
      .filter((part): part is string => part !== undefined && part !== '')
      .map((part) => driver.escape(part))
      .join('.');
    // Only the envelope's own top-level `order` is read: an event field named `order` sits under `event`.
    const [key, position] =
      driver.options.type === 'postgres'
        ? [`payload::json #>> '{order,key}'`, `(payload::json #>> '{order,position}')::integer`]
        : [`json_extract(payload, '$.order.key')`, `json_extract(payload, '$.order.position')`];
    await queryRunner.query(
      `UPDATE ${table} SET order_key = ${key}, order_position = ${position} WHERE payload LIKE '%"order":{%'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('commitbus_outbox', ['order_key', 'order_position']);
  }
}
