// The bus module: the publisher imports it, and `commitbus worker` loads it
// (`export default`: a function returning { bus, dataSource }, which the
// command closes and destroys when it stops).
import type { DataSource } from 'typeorm';
import { createEventBus, type EventBus, loadConfigFromEnv } from '../../src/index.js';
import { sqlTransport } from '../../src/transports/sql/index.js';
import { ordersDataSource } from './data-source.js';
import { orderHandlers } from './handlers.js';
import { OrderPlaced } from './order-placed.event.js';

/** The orders bus on `dataSource`: its events, jobs, rules and dead letters in tables of that database. */
export function ordersBus(dataSource: DataSource): EventBus {
  return createEventBus({
    events: [OrderPlaced],
    handlers: orderHandlers(dataSource),
    dataSource,
    // No Redis: the SQL transport keeps the bus's work in the application's own PostgreSQL.
    transport: sqlTransport({ dataSource }),
    config: loadConfigFromEnv(process.env, { name: 'orders' }),
  });
}

/** For `commitbus worker examples/orders-on-postgres/bus.ts`. */
export default async function makeBus(): Promise<{ bus: EventBus; dataSource: DataSource }> {
  const dataSource = await ordersDataSource().initialize();
  return { bus: ordersBus(dataSource), dataSource };
}
