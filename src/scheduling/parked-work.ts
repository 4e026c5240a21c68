import { randomUUID } from 'node:crypto';
import type { Event } from '../bus/event.js';
import type { HandlerJob } from '../handlers/handler-job.js';
import type { ResolvedHandler } from '../handlers/handler-table.js';

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

/** One handler run held back by a rule. */
export interface HeldRun {
  /** `async`: one async handler; `retry`: the sync chain from this handler on. */
  readonly kind: HandlerJob['kind'];
  /** The decoded event. */
  readonly event: Event;
  /** The payload it was decoded from. */
  readonly payload: string;
  /** The handler held back. */
  readonly handler: ResolvedHandler;
  /** The attempt this run would have been (1 for a first run). */
  readonly attempt: number;
}

/**
 * The parked form of a held run. It keeps the handler's attempt count: when
 * released, its first run is attempt `run.attempt`, with the attempts that
 * were left.
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
    },
    handlingKey: event.handlingKey,
    parkedAt: Date.now(),
  };
}
