import type { Event } from '../bus/event.js';
import type { EventSerializer } from '../bus/event-serializer.js';
import type { Logger } from '../bus/logger.js';
import {
  type AttemptFailure,
  attemptFailure,
  attemptFailureToJson,
} from '../dead-letters/attempt-failure.js';
import { type DeadLetter, handlerDeadLetter, undecodableDeadLetter } from '../dead-letters/dead-letter.js';
import { IdempotencyNotConfiguredError } from '../idempotency/idempotency-not-configured.error.js';
import { type HandlerGate, OPEN_GATE } from '../scheduling/handler-gate.js';
import type { RuleKind, RuleVerdict } from '../scheduling/scheduling-rule.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { backoffDelay } from './backoff.js';
import type { HandlerContext } from './handler.js';
import { giveUpReason, undecodableReason } from './handler-failure.js';
import type { HandlerJob } from './handler-job.js';
import type { HandlerPlan, HandlerTable, ResolvedHandler } from './handler-table.js';
import { HandlerTimeoutError } from './handler-timeout.error.js';
import { runWithTimeout } from './run-with-timeout.js';
import { UnknownHandlerError } from './unknown-handler.error.js';

/** Runs an idempotent handler's work once per (event, handler); see `IdempotentRunner`. */
export interface IdempotencyGuard {
  /** Runs `fn` in a unit of work recording the completion, unless one committed already. */
  run(eventId: string, handler: string, fn: (uow: UnitOfWork) => Promise<void>): Promise<'ran' | 'skipped'>;
}

/** What handling one event (or part of its sync chain) produced. */
export interface DrainedEvent {
  /** Async handler jobs and, if a sync handler failed with attempts left, its retry job. */
  readonly jobs: HandlerJob[];
  /** Work given up: a handler out of attempts, or a payload that cannot be decoded. */
  readonly deadLetters: DeadLetter[];
}

/**
 * Runs handlers: the sync chain of an event inline, one handler for a job.
 * Transport-independent; transports decide where jobs and dead letters go.
 */
export class Dispatcher {
  constructor(
    private readonly table: HandlerTable,
    private readonly serializer: EventSerializer,
    private readonly publish: (events: readonly Event[]) => Promise<void>,
    /** Where handler failures are logged. */
    readonly logger: Logger,
    private readonly rules: HandlerGate = OPEN_GATE,
    private readonly idempotency?: IdempotencyGuard,
  ) {}

  /**
   * Handles one payload read by a drain: decodes it, runs its sync handlers in
   * order, and returns the jobs to enqueue (its async handlers, plus a retry
   * job if a sync handler failed with attempts left) and the dead letters to
   * keep (a payload that cannot be decoded, sync handlers given up).
   */
  async drainOne(payload: string): Promise<DrainedEvent> {
    let event: Event;
    try {
      event = this.serializer.deserialize(payload);
    } catch (error) {
      const letter = undecodableDeadLetter(payload, undecodableReason(error), [attemptFailure(error, 1)]);
      this.logger.error(
        { deadLetter: letter.id, reason: letter.reason, error: letter.error },
        'undecodable event kept as a dead letter; the drain goes on',
      );
      return { jobs: [], deadLetters: [letter] };
    }
    const jobs: HandlerJob[] = this.table.plan(event.handlingKey).async.map((h) => ({
      kind: 'async',
      jobId: `${event.id}.${h.name}`,
      payload,
      handler: h.name,
      attempts: h.attempts,
      backoff: h.backoff,
      delayMs: 0,
    }));
    const chain = await this.runSyncChain(event, payload, 0);
    return { jobs: [...jobs, ...chain.jobs], deadLetters: chain.deadLetters };
  }

  /**
   * Runs the sync handlers of `event` in order from position `from`, each as
   * its first attempt. A handler that fails with attempts left stops the chain:
   * its retry job runs it again and then goes on with the chain. A handler
   * with no attempt left is given up as a dead letter, and the chain goes on.
   * A paused handler parks the chain from there; a blocked one is skipped.
   */
  async runSyncChain(event: Event, payload: string, from: number): Promise<DrainedEvent> {
    const sync = this.table.plan(event.handlingKey).sync;
    const deadLetters: DeadLetter[] = [];
    for (let i = from; i < sync.length; i++) {
      const handler = sync[i] as ResolvedHandler;
      const verdict = this.verdict(handler, event);
      if (verdict !== 'run') {
        await this.hold(verdict, 'retry', event, payload, handler, 1);
        if (verdict === 'pause') return { jobs: [], deadLetters }; // the chain from here is parked
        continue; // blocked: dropped, the chain goes on
      }
      try {
        await this.run(handler, event, 1);
      } catch (error) {
        const failures = [attemptFailure(error, 1)];
        const reason = giveUpReason(error, handler.attempts <= 1);
        if (reason === undefined) {
          this.logger.warn(
            { eventId: event.id, key: event.handlingKey, handler: handler.name, error: failures[0]?.error },
            'sync handler failed; retried as a job, the rest of its chain waits for it',
          );
          return { jobs: [retryJob(event.id, payload, handler, failures)], deadLetters };
        }
        deadLetters.push(this.giveUp(payload, handler.name, reason, failures));
      }
    }
    return { jobs: [], deadLetters };
  }

  /** Position of a sync handler in its event's chain, or {@link UnknownHandlerError}. */
  syncIndex(event: Event, handlerName: string): number {
    const index = this.table.plan(event.handlingKey).sync.findIndex((h) => h.name === handlerName);
    // The handler is gone, or no longer sync: EVENT_HANDLERS changed since the retry was queued.
    if (index < 0) throw new UnknownHandlerError(handlerName, event.handlingKey);
    return index;
  }

  /** The handlers of `event`'s handling key, sync and async, in order. */
  planOf(event: Event): HandlerPlan {
    return this.table.plan(event.handlingKey);
  }

  /** The handler named `name` for `event`, or {@link UnknownHandlerError}. */
  find(event: Event, name: string): ResolvedHandler {
    return this.table.find(event.handlingKey, name);
  }

  /**
   * Runs one handler for one event within its `timeoutMs`: throws what the
   * handler throws, or {@link HandlerTimeoutError} when it does not settle in
   * time. An idempotent handler runs in its completion-recording unit of work.
   */
  run(handler: ResolvedHandler, event: Event, attempt: number): Promise<void> {
    return runWithTimeout(
      (signal) => this.invoke(handler, event, this.context(handler.name, attempt, signal)),
      handler.timeoutMs,
      () => new HandlerTimeoutError(handler.name, event.id, handler.timeoutMs),
    );
  }

  /** What the scheduling rules say about running `handler` for `event` now (no I/O). */
  verdict(handler: ResolvedHandler, event: Event): RuleVerdict {
    return this.rules.verdict(handler.name, event.handlingKey);
  }

  /**
   * Holds back a run the rules stop: parks it (`pause`; a `retry` parks the
   * sync chain from this handler on) or drops and counts it (`block`).
   */
  hold(
    verdict: RuleKind,
    kind: HandlerJob['kind'],
    event: Event,
    payload: string,
    handler: ResolvedHandler,
    attempt: number,
  ): Promise<void> {
    return this.rules.hold(verdict, { kind, event, payload, handler, attempt });
  }

  private async invoke(handler: ResolvedHandler, event: Event, ctx: HandlerContext): Promise<void> {
    if (!handler.idempotent) {
      await handler.handler.handle(event, ctx);
      return;
    }
    if (this.idempotency === undefined) {
      throw new IdempotencyNotConfiguredError(handler.name, 'the bus has no dataSource');
    }
    const outcome = await this.idempotency.run(event.id, handler.name, async (uow) => {
      await handler.handler.handle(event, { ...ctx, uow });
    });
    if (outcome === 'skipped') {
      this.logger.info(
        { eventId: event.id, handler: handler.name },
        'idempotent handler already ran for this event; skipped',
      );
    }
  }

  /** A handler given up: its dead letter, logged. */
  giveUp(
    payload: string,
    handler: string,
    reason: DeadLetter['reason'],
    failures: readonly AttemptFailure[],
  ): DeadLetter {
    const letter = handlerDeadLetter(payload, handler, reason, failures);
    this.logger.error(
      { deadLetter: letter.id, handler, reason, attempts: failures.length, error: letter.error },
      'handler given up; kept as a dead letter',
    );
    return letter;
  }

  /** Decodes a payload (throws the serializer's typed errors). */
  decode(payload: string): Event {
    return this.serializer.deserialize(payload);
  }

  private context(handlerName: string, attempt: number, signal: AbortSignal): HandlerContext {
    return {
      handlerName,
      attempt,
      signal,
      publish: (events) => this.publish(Array.isArray(events) ? events : [events as Event]),
    };
  }
}

/**
 * The job that runs a failed sync handler again and then the rest of its
 * chain. `failures` are the handler's failed attempts so far.
 */
export function retryJob(
  eventId: string,
  payload: string,
  handler: ResolvedHandler,
  failures: readonly AttemptFailure[],
): HandlerJob {
  const runsDone = failures.length;
  return {
    kind: 'retry',
    jobId: `${eventId}.retry.${handler.name}.${runsDone}`,
    payload,
    handler: handler.name,
    attempts: handler.attempts - runsDone,
    backoff: handler.backoff,
    delayMs: backoffDelay(handler.backoff, runsDone),
    firstAttempt: runsDone + 1,
    failures: failures.map(attemptFailureToJson),
  };
}
