import type { Logger } from './logger.js';

/**
 * How often a failure that goes on is logged: the first of a run of
 * failures, then one in {@link FAILURE_LOG_EVERY}.
 */
export const FAILURE_LOG_EVERY = 30;

/**
 * The log of a loop that retries through failures (an outage fails every
 * turn): it warns of the first failure of a run, then of one in `every`, and,
 * when given a message, says so once the loop succeeds again. It counts the
 * run too, so the loop can take its wait from it (`retryDelay`).
 */
export class FailureLog {
  private failures = 0;

  /**
   * @param logger - where the lines go.
   * @param every - a failure is logged when it is the first of its run or `every` after a logged one.
   */
  constructor(
    private readonly logger: Logger,
    private readonly every: number = FAILURE_LOG_EVERY,
  ) {}

  /** Failures since the last success. */
  get inARow(): number {
    return this.failures;
  }

  /** Counts a failure and warns of it (with `failuresInARow`) if it is the first of its run or one in `every`. */
  failed(fields: object, message: string): void {
    this.failures++;
    if ((this.failures - 1) % this.every !== 0) return;
    this.logger.warn({ ...fields, failuresInARow: this.failures }, message);
  }

  /** Ends a run of failures; with a `message`, says (info) that the loop recovered, if it had failed. */
  succeeded(recovered?: { readonly fields: object; readonly message: string }): void {
    if (this.failures > 0 && recovered !== undefined) this.logger.info(recovered.fields, recovered.message);
    this.failures = 0;
  }
}
