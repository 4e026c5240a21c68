import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/** The example's own tables, `orders` and `order_notifications`, in the DataSource's schema. */
export class CreateOrders1764500000000 implements MigrationInterface {
  readonly name = 'CreateOrders1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'orders',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'totalCents', type: 'integer' },
          { name: 'status', type: 'varchar', length: '16', default: "'placed'" },
        ],
      }),
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'order_notifications',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'orderId', type: 'varchar', length: '64' },
          { name: 'message', type: 'varchar', length: '200' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('order_notifications', true);
    await queryRunner.dropTable('orders', true);
  }
}
