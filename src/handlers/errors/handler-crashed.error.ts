import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * Work was handed to workers more than `handlers.maxDeliveries` times without
 * finishing: each time its worker died or stalled (the handler called
 * `process.exit`, ran out of memory, crashed natively, or blocked the event
 * loop past `handlers.lockDurationMs`). It is not run again; it becomes a dead letter
 * with reason `crashed`, or halts its order key.
 */
export class HandlerCrashedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_HANDLER_CRASHED';

  constructor(
    readonly handlerName: string,
    readonly eventId: string,
    readonly deliveries: number,
    readonly maxDeliveries: number,
  ) {
    super(
      `handler ${JSON.stringify(handlerName)} for event ${eventId} was not run: its work was delivered ${deliveries} times (handlers.maxDeliveries ${maxDeliveries}) and its worker died or stalled each time. Find what kills the process (process.exit, out of memory, a native crash, a blocked event loop), fix it, then re-drive the dead letter (or bus.ordering.redrive(key))`,
    );
  }
}
