import { randomUUID } from 'node:crypto';
import { attemptFailureToJson } from '../dead-letters/attempt-failure.js';
import type { HeldRun } from '../handlers/handler-gate.js';
import type { HandlerJob } from '../handlers/handler-job.js';

export type { HeldRun };

/** Work of a paused handler, waiting to be enqueued again when it is resumed. */
export interface ParkedWork {
  /**
   * The job to enqueue on release. Its id is new for each parking, so it never
   * collides with the job that parked it (which may still be finishing), and
   * enqueueing it twice (a worker died while releasing) adds it once.
   */
  readonly job: HandlerJob & { readonly handler: string };
  /** The event's handling key: the rules are checked again on release. */
  readonly handlingKey: string;
  /** When it was parked, in epoch milliseconds. */
  readonly parkedAt: number;
}

/**
 * The parked form of a held run. It keeps the handler's attempt count: when
 * released, its first run is attempt `run.attempt`, with the attempts that
 * were left, and the failures of the attempts before it.
 */
export function parkedWork(run: HeldRun): ParkedWork {
  const { kind, event, handler, attempt } = run;
  const stem = kind === 'async' ? `${event.id}.${handler.name}` : `${event.id}.retry.${handler.name}`;
  return {
    job: {
      kind,
      jobId: `${stem}.parked-${randomUUID()}`,
      payload: run.payload,
      handler: handler.name,
      attempts: Math.max(1, handler.attempts - attempt + 1),
      backoff: handler.backoff,
      delayMs: 0,
      firstAttempt: attempt,
      ...(run.failures !== undefined && run.failures.length > 0
        ? { failures: run.failures.map(attemptFailureToJson) }
        : {}),
    },
    handlingKey: event.handlingKey,
    parkedAt: Date.now(),
  };
}
