// The publishing process: commits orders, each in its own unit of work, and exits.
// `npx tsx examples/orders-on-postgres/publisher.ts [count]` (default 20); a
// `commitbus worker` running anywhere on the same database handles them.
import { randomUUID } from 'node:crypto';
import { UnitOfWorkManager } from '../../src/index.js';
import { ordersBus } from './bus.js';
import { ordersDataSource } from './data-source.js';
import { InvalidOrderError, OrderService } from './order.service.js';

const count = Number(process.argv[2] ?? 20);
if (!Number.isInteger(count) || count < 1)
  throw new Error(`the count must be a positive integer, got ${process.argv[2]}`);

const dataSource = await ordersDataSource().initialize();
const bus = ordersBus(dataSource);
const orders = new OrderService(new UnitOfWorkManager({ bus }));
const run = randomUUID().slice(0, 8);
try {
  for (let i = 1; i <= count; i++) {
    const id = `${run}-${i}`;
    await orders.place(id, 100 * i);
    console.log(`publisher: placed ${id}`);
  }
  // One the service refuses: rolled back with its event, so no worker ever sees it.
  await orders.place(`${run}-refused`, 0).catch((error: unknown) => {
    if (!(error instanceof InvalidOrderError)) throw error;
    console.log(`publisher: refused ${run}-refused (rolled back)`);
  });
  console.log(`publisher: committed ${count} orders (run ${run})`);
} finally {
  // Waits for the events being published after commit; rows a crash leaves in the outbox are relayed by any process.
  await bus.close();
  await dataSource.destroy();
}
