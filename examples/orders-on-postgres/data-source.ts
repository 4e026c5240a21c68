import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { COMMITBUS_ENTITIES, COMMITBUS_MIGRATIONS } from '../../src/index.js';
import { CreateOrders1764500000000 } from './create-orders.migration.js';
import { Order } from './order.entity.js';
import { OrderNotification } from './order-notification.entity.js';

/** The PostgreSQL schema the example's tables go in (`ORDERS_PG_SCHEMA`, default `orders_demo`). */
export function ordersSchema(env: NodeJS.ProcessEnv = process.env): string {
  const schema = env.ORDERS_PG_SCHEMA ?? 'orders_demo';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`ORDERS_PG_SCHEMA must be a lower-case SQL identifier, got "${schema}"`);
  }
  return schema;
}

/**
 * The application's DataSource on PostgreSQL (`DATABASE_URL`): its own
 * entities and commitbus's (`COMMITBUS_ENTITIES`: the SQL transport's
 * tables among them), and the migrations that create both. Not initialized.
 */
export function ordersDataSource(env: NodeJS.ProcessEnv = process.env): DataSource {
  const url = env.DATABASE_URL;
  if (!url)
    throw new Error('set DATABASE_URL to your PostgreSQL, e.g. postgres://postgres@127.0.0.1:5432/test');
  return new DataSource({
    type: 'postgres',
    url,
    schema: ordersSchema(env),
    entities: [Order, OrderNotification, ...COMMITBUS_ENTITIES],
    migrations: [CreateOrders1764500000000, ...COMMITBUS_MIGRATIONS],
  });
}
