import { CommitbusError } from '../support/commitbus-error.js';
import { describeError } from '../support/logger.js';
import { abandonAttempt } from './cycle-attempt.js';
import { EventRejectedError } from './errors/event-rejected.error.js';
import { EventStoreStepTimeoutError } from './errors/event-store-step-timeout.error.js';
import type { StepFailure } from './store-event.js';

/** A step of the cycle failed: what to record on the event's history row. */
export class CycleFailure extends CommitbusError {
  /** Stable code, for logs: the writer records the failure and never lets this reach a caller. */
  readonly code = 'COMMITBUS_EVENT_STORE_CYCLE_FAILURE';
  /** The failure as stored. */
  readonly failure: StepFailure;
  /**
   * The step did not settle in time: its code may still run, with a query in
   * flight on the writer's connection, so that connection must be thrown
   * away instead of rolled back and reused.
   */
  readonly timedOut: boolean;
  /** A reducer rejected the event (`esFail`): recorded as `rejected`, not a halt. */
  readonly rejected: boolean;

  constructor(step: StepFailure['step'], path: readonly string[], cause: unknown, model?: string) {
    const described = describeError(cause);
    const rejected = cause instanceof EventRejectedError;
    super(described.message, { cause });
    this.timedOut = cause instanceof EventStoreStepTimeoutError;
    this.rejected = rejected;
    this.failure = {
      step,
      ...(model === undefined ? {} : { model }),
      path: [...path],
      name: described.name,
      // A rejection's message is the reducer's reason, as it gave it.
      message: rejected ? cause.reason : described.message,
      ...(described.stack === undefined || rejected ? {} : { stack: described.stack }),
      at: Date.now(),
    };
  }
}

/**
 * Runs `fn`; a failure becomes a {@link CycleFailure} of `step` (one already
 * made passes through), and so does not settling within `timeoutMs`
 * ({@link EventStoreStepTimeoutError}; `fn` is abandoned).
 */
export async function step<T>(
  name: StepFailure['step'],
  path: readonly string[],
  model: string | undefined,
  fn: () => T | Promise<T>,
  timeoutMs: number,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const running = Promise.resolve().then(fn);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abandonAttempt();
        reject(new EventStoreStepTimeoutError(name, model, timeoutMs));
      }, timeoutMs);
    });
    // The abandoned callback may still fail later: that must not be an unhandled rejection.
    running.catch(() => {});
    return await Promise.race([running, timeout]);
  } catch (error) {
    if (error instanceof CycleFailure) throw error;
    throw new CycleFailure(name, path, error, model);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `error`, or an error it was caused by, is a step that timed out (see {@link CycleFailure.timedOut}). */
export function timedOut(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof CycleFailure && e.timedOut) return true;
  }
  return false;
}
