import type { BackoffStrategy, BackoffOptions as BullmqBackoffOptions, MinimalJob } from 'bullmq';
import { jobRetryDelay } from '../../handlers/handler-job.js';
import type { HandlerJobData } from '../../handlers/process-handler-job.js';
import { InternalError } from '../../support/errors/internal.error.js';
import type { BackoffOptions } from '../../support/retry-policy.js';

// A handler job's backoff type in BullMQ: our strategy's name and the policy's type.
const STRATEGY = 'commitbus';

/**
 * A handler's backoff as a BullMQ job option: a type BullMQ has no strategy
 * of its own for (`commitbus:fixed`, `commitbus:exponential`), so BullMQ asks
 * the workers' {@link commitbusBackoffStrategy} for every wait.
 */
export function bullmqBackoff(backoff: BackoffOptions): BullmqBackoffOptions {
  return { type: `${STRATEGY}:${backoff.type}`, delay: backoff.delayMs, jitter: backoff.jitter ?? 0 };
}

/**
 * The waits between a handler job's runs, computed by commitbus: the wait the
 * failed run told (`decided`, set by the processor from `HandlerJobRun.retryIn`:
 * the handler's backoff at the attempt that failed, as on every other path),
 * or, when the run threw before deciding one (a store failed), the same
 * backoff from the job's options and data (`jobRetryDelay`).
 * Jobs added before commitbus timed its own retries keep BullMQ's built-in
 * `fixed` and `exponential` types, which BullMQ times itself.
 * @param decided - the wait each job's failed run told, by job; read once.
 */
export function commitbusBackoffStrategy(decided: WeakMap<object, number>): BackoffStrategy {
  return (attemptsMade, type, _error, job) => {
    if (job === undefined) throw new InternalError('BullMQ asked for a backoff without its job');
    const told = decided.get(job);
    decided.delete(job);
    if (told !== undefined) return told;
    return jobRetryDelay(fromBullmq(job, type), attemptsMade);
  };
}

function fromBullmq(job: MinimalJob, type: string | undefined): Parameters<typeof jobRetryDelay>[0] {
  const policyType = type?.startsWith(`${STRATEGY}:`) ? type.slice(STRATEGY.length + 1) : undefined;
  const { backoff } = job.opts;
  if ((policyType !== 'fixed' && policyType !== 'exponential') || typeof backoff !== 'object') {
    throw new InternalError(`a handler job has a backoff commitbus never sets (${JSON.stringify(backoff)})`);
  }
  const data = job.data as Partial<HandlerJobData>;
  return {
    backoff: { type: policyType, delayMs: backoff.delay ?? 0, jitter: backoff.jitter ?? 0 },
    ...(data.firstAttempt !== undefined ? { firstAttempt: data.firstAttempt } : {}),
  };
}
