import { CommitbusError } from '../../support/commitbus-error.js';

/** `caughtUp({ timeoutMs })` ran out before the subscription reached the version it waited for. */
export class SubscriptionTimeoutError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SUBSCRIPTION_TIMEOUT';

  /**
   * @param subscription - the subscription's name.
   * @param v - the version waited for.
   * @param position - its checkpoint when last seen.
   */
  constructor(
    readonly subscription: string,
    readonly v: number,
    readonly position: number,
    timeoutMs: number,
  ) {
    super(
      `subscription "${subscription}" did not reach v${v} within ${timeoutMs} ms (its checkpoint was at v${position}): is it started in some process (store.subscriptions.list() shows its owner), or is its handler slow?`,
    );
  }
}
