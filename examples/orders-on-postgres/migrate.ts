// Creates the schema and runs the migrations: the example's tables and commitbus's.
// `npx tsx examples/orders-on-postgres/migrate.ts`, once, before the publisher and the worker.
import { ordersDataSource, ordersSchema } from './data-source.js';

const dataSource = await ordersDataSource().initialize();
try {
  await dataSource.query(`CREATE SCHEMA IF NOT EXISTS ${ordersSchema()}`);
  const ran = await dataSource.runMigrations({ transaction: 'all' });
  console.log(`migrate: ${ran.length} migration(s) run in schema ${ordersSchema()}`);
} finally {
  await dataSource.destroy();
}
