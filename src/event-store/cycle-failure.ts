import { describeError } from '../support/logger.js';
import type { StepFailure } from './store-event.js';

/** A step of the cycle failed: what to record on the event's history row. */
export class CycleFailure extends Error {
  /** The failure as stored. */
  readonly failure: StepFailure;

  constructor(step: StepFailure['step'], path: readonly string[], cause: unknown, model?: string) {
    const described = describeError(cause);
    super(described.message, { cause });
    this.name = 'CycleFailure';
    this.failure = {
      step,
      ...(model === undefined ? {} : { model }),
      path: [...path],
      name: described.name,
      message: described.message,
      ...(described.stack === undefined ? {} : { stack: described.stack }),
      at: Date.now(),
    };
  }
}

/** Runs `fn`; a failure becomes a {@link CycleFailure} of `step` (one already made passes through). */
export async function step<T>(
  name: StepFailure['step'],
  path: readonly string[],
  model: string | undefined,
  fn: () => T | Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CycleFailure) throw error;
    throw new CycleFailure(name, path, error, model);
  }
}
