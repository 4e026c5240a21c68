import { SendEventOp, type UnitOfWork, type UnitOfWorkManager, unitOfWork } from '../../src/index.js';
import { Order } from './order.entity.js';
import { OrderPlaced } from './order-placed.event.js';

/** An order the service refuses: its unit of work rolls back, and its event never existed. */
export class InvalidOrderError extends Error {
  constructor(id: string, totalCents: number) {
    super(`order ${id} has no positive total (${totalCents} cents)`);
    this.name = 'InvalidOrderError';
  }
}

/** The service layer: each method is one unit of work (one transaction) that publishes its events after commit. */
export class OrderService {
  constructor(readonly unitOfWorks: UnitOfWorkManager) {}

  /** Inserts the order and registers `ORDER.PLACE`; both commit, or neither does. */
  @unitOfWork()
  async place(id: string, totalCents: number, uow?: UnitOfWork): Promise<void> {
    await uow!.manager.insert(Order, { id, totalCents, status: 'placed' });
    uow!.register(new SendEventOp(OrderPlaced.create({ orderId: id, totalCents })));
    // Checked after the insert and the event, to show a rollback takes both back.
    if (totalCents <= 0) throw new InvalidOrderError(id, totalCents);
  }
}
