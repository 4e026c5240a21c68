import type { OrderingMode } from '../../config/option-groups.js';
import { CommitbusError } from '../../support/commitbus-error.js';

/** An ordered event was published on a bus whose workers run no ordered lanes: nothing would ever handle it. */
export class OrderingDisabledError extends CommitbusError {
  /** Stable code for callers that catch it. */
  readonly code = 'COMMITBUS_ORDERING_DISABLED';

  constructor(handlingKey: string, orderKey: string, mode: OrderingMode) {
    const why =
      mode === 'auto'
        ? "ordering.mode is 'auto' and no registered event class has orderBy"
        : "ordering.mode is 'off'";
    super(
      `a ${handlingKey} event was published with order key ${JSON.stringify(orderKey)}, but this bus runs no ordered lanes (${why}), so no worker would ever handle it: set ordering: { mode: 'on' } (COMMITBUS_ORDERING_MODE=on) on every process of the bus, publishers and workers alike, or publish it without orderKey`,
    );
  }
}
