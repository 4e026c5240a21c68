import { randomUUID } from 'node:crypto';
import type { Event } from '../bus/event.js';
import type { EventSerializer } from '../bus/event-serializer.js';
import { describeError, type Logger } from '../bus/logger.js';
import { IdempotencyNotConfiguredError } from '../idempotency/idempotency-not-configured.error.js';
import { type HandlerGate, OPEN_GATE } from '../scheduling/handler-gate.js';
import type { RuleKind } from '../scheduling/scheduling-rule.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { backoffDelay } from './backoff.js';
import type { HandlerContext } from './handler.js';
import type { HandlerJob } from './handler-job.js';
import type { HandlerTable, ResolvedHandler } from './handler-table.js';
import { NonRetryableError } from './non-retryable.error.js';
import { UnknownHandlerError } from './unknown-handler.error.js';

/** Runs an idempotent handler's work once per (event, handler); see `IdempotentRunner`. */
export interface IdempotencyGuard {
  /** Runs `fn` in a unit of work recording the completion, unless one committed already. */
  run(eventId: string, handler: string, fn: (uow: UnitOfWork) => Promise<void>): Promise<'ran' | 'skipped'>;
}

/** A sync chain stopped at a handler that threw. */
export interface SyncFailure {
  /** The handler that threw. */
  readonly handler: ResolvedHandler;
  /** What it threw. */
  readonly error: unknown;
}

/** What handling one event in a drain produced. */
export interface DrainedEvent {
  /** Async handler jobs and, if a sync handler failed, its retry job. */
  readonly jobs: HandlerJob[];
  /** Set when the event ran no sync handler to completion. */
  readonly failure?: SyncFailure;
}

/**
 * Runs handlers: the sync chain of an event inline, one async handler for a
 * job. Transport-independent; transports decide where jobs go.
 */
export class Dispatcher {
  // The payload each event was decoded from, for work parked by a pause.
  private readonly payloads = new WeakMap<Event, string>();

  constructor(
    private readonly table: HandlerTable,
    private readonly serializer: EventSerializer,
    private readonly publish: (events: readonly Event[]) => Promise<void>,
    private readonly logger: Logger,
    private readonly rules: HandlerGate = OPEN_GATE,
    private readonly idempotency?: IdempotencyGuard,
  ) {}

  /**
   * Handles one payload read by a drain: decodes it, runs its sync handlers in
   * order, and returns the jobs to enqueue (its async handlers, plus a retry
   * job if a sync handler threw or the payload could not be decoded).
   */
  async drainOne(payload: string): Promise<DrainedEvent> {
    let event: Event;
    try {
      event = this.decode(payload);
    } catch (error) {
      const reason = describeError(error).message;
      this.logger.error({ error: reason }, 'undecodable event kept as failed; the worker goes on');
      return { jobs: [undecodableJob(payload, reason)] };
    }
    const plan = this.table.plan(event.handlingKey);
    const jobs: HandlerJob[] = plan.async.map((h) => ({
      kind: 'async',
      jobId: `${event.id}.${h.name}`,
      payload,
      handler: h.name,
      attempts: h.attempts,
      backoff: h.backoff,
      delayMs: 0,
    }));
    const failure = await this.runSync(event);
    if (failure !== undefined) jobs.push(retryJob(event.id, payload, failure, 1));
    return failure === undefined ? { jobs } : { jobs, failure };
  }

  /**
   * Runs the sync handlers of `event` in order, starting at `fromHandler` (or
   * the first), and stops at the first that throws. `attempt` is passed to the
   * first handler run; the others run as attempt 1.
   */
  async runSync(event: Event, fromHandler?: string, attempt = 1): Promise<SyncFailure | undefined> {
    const sync = this.table.plan(event.handlingKey).sync;
    const start = fromHandler === undefined ? 0 : sync.findIndex((h) => h.name === fromHandler);
    // The handler is gone, or no longer sync: EVENT_HANDLERS changed since the retry was queued.
    if (start < 0) throw new UnknownHandlerError(fromHandler ?? '', event.handlingKey);
    for (let i = start; i < sync.length; i++) {
      const handler = sync[i] as ResolvedHandler;
      const verdict = this.rules.verdict(handler.name, event.handlingKey);
      if (verdict !== 'run') {
        await this.hold(verdict, 'retry', event, handler, i === start ? attempt : 1);
        if (verdict === 'pause') return undefined; // the rest of the chain is parked from this handler
        continue; // blocked: dropped, the chain goes on
      }
      try {
        await this.invoke(handler, event, i === start ? attempt : 1);
      } catch (error) {
        this.logger.warn(
          {
            eventId: event.id,
            key: event.handlingKey,
            handler: handler.name,
            error: describeError(error).message,
          },
          'sync handler failed',
        );
        return { handler, error };
      }
    }
    return undefined;
  }

  /** Runs one async handler for a decoded event; throws what the handler throws. */
  async runAsync(event: Event, handlerName: string, attempt: number): Promise<void> {
    const handler = this.table.find(event.handlingKey, handlerName);
    const verdict = this.rules.verdict(handler.name, event.handlingKey);
    if (verdict !== 'run') return this.hold(verdict, 'async', event, handler, attempt);
    await this.invoke(handler, event, attempt);
  }

  private async invoke(handler: ResolvedHandler, event: Event, attempt: number): Promise<void> {
    if (!handler.idempotent) {
      await handler.handler.handle(event, this.context(handler.name, attempt));
      return;
    }
    if (this.idempotency === undefined) {
      throw new IdempotencyNotConfiguredError(handler.name, 'the bus has no dataSource');
    }
    const outcome = await this.idempotency.run(event.id, handler.name, async (uow) => {
      await handler.handler.handle(event, { ...this.context(handler.name, attempt), uow });
    });
    if (outcome === 'skipped') {
      this.logger.info(
        { eventId: event.id, handler: handler.name },
        'idempotent handler already ran for this event; skipped',
      );
    }
  }

  /** Decodes a payload (throws the serializer's typed errors). */
  decode(payload: string): Event {
    const event = this.serializer.deserialize(payload);
    this.payloads.set(event, payload);
    return event;
  }

  // Parks (pause) or drops (block) a run, keeping the payload the event came in.
  private hold(
    verdict: RuleKind,
    kind: HandlerJob['kind'],
    event: Event,
    handler: ResolvedHandler,
    attempt: number,
  ): Promise<void> {
    const payload = this.payloads.get(event) ?? this.serializer.serialize(event).payload;
    return this.rules.hold(verdict, { kind, event, payload, handler, attempt });
  }

  private context(handlerName: string, attempt: number): HandlerContext {
    return {
      handlerName,
      attempt,
      publish: (events) => this.publish(Array.isArray(events) ? events : [events as Event]),
    };
  }
}

/**
 * The job that retries a sync chain from the handler that failed. `runsDone`
 * is how many runs of that handler already happened.
 */
export function retryJob(
  eventId: string,
  payload: string,
  failure: SyncFailure,
  runsDone: number,
): HandlerJob {
  const { handler } = failure;
  const left = failure.error instanceof NonRetryableError ? 0 : handler.attempts - runsDone;
  const base = {
    kind: 'retry' as const,
    jobId: `${eventId}.retry.${handler.name}.${runsDone}`,
    payload,
    handler: handler.name,
    backoff: handler.backoff,
  };
  if (left <= 0) {
    return { ...base, attempts: 1, delayMs: 0, exhaustedError: describeError(failure.error).message };
  }
  return { ...base, attempts: left, delayMs: backoffDelay(handler.backoff, runsDone) };
}

function undecodableJob(payload: string, reason: string): HandlerJob {
  return {
    kind: 'retry',
    jobId: `undecodable.${randomUUID()}`,
    payload,
    attempts: 1,
    backoff: { type: 'fixed', delayMs: 0 },
    delayMs: 0,
    exhaustedError: reason,
  };
}
