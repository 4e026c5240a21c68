import { CommitbusError } from '../../support/commitbus-error.js';
import type { SubscriptionFailure } from '../subscriptions/subscription-status.js';

/**
 * A durable subscription is halted: its handler failed an event
 * `maxAttempts` times, or history it has not consumed was pruned. It
 * consumes nothing in any process until an operator resumes or resets it;
 * nothing is skipped on its own. `caughtUp` rejects with it.
 */
export class SubscriptionHaltedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_SUBSCRIPTION_HALTED';

  /**
   * @param subscription - the subscription's name.
   * @param failure - what halted it.
   */
  constructor(
    readonly subscription: string,
    readonly failure?: SubscriptionFailure,
  ) {
    const what =
      failure === undefined
        ? 'it is halted'
        : failure.reason === 'gap'
          ? `history from v${failure.v} it has not consumed is gone (${failure.message})`
          : `its handler failed v${failure.v} (${failure.type}) ${failure.attempts} times, last with ${failure.name}: ${failure.message}`;
    const v = failure?.v ?? 'v';
    super(
      `subscription "${subscription}" is halted: ${what}. It consumes nothing until you fix the cause and call store.subscriptions.resume("${subscription}") to try again, or store.subscriptions.reset("${subscription}", { from: ${typeof v === 'number' ? v + 1 : 'v + 1'} }) to go on after it`,
    );
  }
}
