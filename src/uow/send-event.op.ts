import type { DeliveryOptions } from '../events/delivery-options.js';
import type { Event } from '../events/event.js';
import { assertEvent } from '../events/event-check.js';
import type { Operation } from './operation.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Publishes an event after the unit of work commits, never if it rolls back.
 * All events of a unit of work go out together, in registration order. On a
 * transport whose tables are in the unit of work's own database (the SQL
 * transport, on the same DataSource) the event row itself is written in
 * the same transaction, just before COMMIT, and exists exactly when the
 * unit of work's rows do; elsewhere, with the outbox on, the event is
 * written to the outbox in the same transaction, so a crash after commit
 * cannot lose it. `{ delay }` (ms after commit; on the SQL transport's own
 * transaction, after the row is written just before COMMIT) or
 * `{ delayUntil }` hold its handling back until then.
 */
export class SendEventOp implements Operation {
  /**
   * @param event - the event to publish after commit.
   * @param delivery - when it may be handled; at once by default.
   * @throws NotAnEventError when `event` is not an event (`null`, a plain object).
   */
  constructor(
    readonly event: Event,
    readonly delivery?: DeliveryOptions,
  ) {
    assertEvent(event, 'new SendEventOp');
  }

  onRegister(uow: UnitOfWork): void {
    uow.events.add(this.event, this.delivery);
  }

  onPostCommit(uow: UnitOfWork): Promise<void> {
    return uow.events.flush();
  }
}
