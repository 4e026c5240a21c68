import type { Event } from '../bus/event.js';
import type { Operation } from './operation.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Publishes an event after the unit of work commits, never if it rolls back.
 * All events of a unit of work go out together, in registration order.
 */
export class SendEventOp implements Operation {
  /** @param event - the event to publish after commit. */
  constructor(readonly event: Event) {}

  onRegister(uow: UnitOfWork): void {
    uow.events.add(this.event);
  }

  onPostCommit(uow: UnitOfWork): Promise<void> {
    return uow.events.flush();
  }
}
