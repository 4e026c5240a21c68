import { CommitbusError } from '../../support/commitbus-error.js';

/** One dead letter that could not be re-driven, and why. */
export interface RedriveFailure {
  /** The letter's id; it stays in the store. */
  readonly id: string;
  /** Why it could not be re-driven. */
  readonly error: string;
}

/**
 * Some dead letters could not be re-driven (their payload still cannot be
 * decoded, or their handler is not in this process's `EVENT_HANDLERS`). They
 * stay in the store; the others were re-driven.
 */
export class DeadLetterRedriveError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_DEAD_LETTER_REDRIVE';

  constructor(
    /** How many letters were re-driven before and besides these. */
    readonly redriven: number,
    /** The letters that stay, each with its reason. */
    readonly failed: readonly RedriveFailure[],
    options?: ErrorOptions,
  ) {
    const listed = failed.map((f) => `${f.id}: ${f.error}`).join('; ');
    super(
      `could not re-drive ${failed.length} dead letter(s), which stay in the store (${redriven} other(s) re-driven): ${listed}. Register the missing event classes and handlers in this process's createEventBus (and deploy them to the workers), then re-drive again, or purge the letters`,
      options,
    );
  }
}
