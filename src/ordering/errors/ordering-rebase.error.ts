import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * `bus.ordering.rebase(key)` could not re-base the key's lane: it has an
 * event in hand (running, waiting for a retry or halted), it holds nothing
 * and no position was given, the position given would skip an event it
 * holds, or it is below the position the lane is at. Nothing changed.
 */
export class OrderingRebaseError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_ORDERING_REBASE';

  /**
   * @param key - the order key.
   * @param problem - why, and what to do instead.
   */
  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`order key ${JSON.stringify(key)} was not re-based: ${problem}`);
  }
}
