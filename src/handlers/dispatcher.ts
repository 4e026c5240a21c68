import { randomUUID } from 'node:crypto';
import type { Event } from '../bus/event.js';
import type { EventSerializer } from '../bus/event-serializer.js';
import { describeError, type Logger } from '../bus/logger.js';
import { backoffDelay } from './backoff.js';
import type { HandlerContext } from './handler.js';
import type { HandlerJob } from './handler-job.js';
import type { HandlerTable, ResolvedHandler } from './handler-table.js';
import { HandlerTimeoutError } from './handler-timeout.error.js';
import { NonRetryableError } from './non-retryable.error.js';
import { runWithTimeout } from './run-with-timeout.js';
import { UnknownHandlerError } from './unknown-handler.error.js';

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
  constructor(
    private readonly table: HandlerTable,
    private readonly serializer: EventSerializer,
    private readonly publish: (events: readonly Event[]) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /**
   * Handles one payload read by a drain: decodes it, runs its sync handlers in
   * order, and returns the jobs to enqueue (its async handlers, plus a retry
   * job if a sync handler threw or the payload could not be decoded).
   */
  async drainOne(payload: string): Promise<DrainedEvent> {
    let event: Event;
    try {
      event = this.serializer.deserialize(payload);
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
      try {
        await this.run(handler, event, i === start ? attempt : 1);
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
    await this.run(this.table.find(event.handlingKey, handlerName), event, attempt);
  }

  /**
   * Runs one handler for one event within its `timeoutMs`: throws what the
   * handler throws, or {@link HandlerTimeoutError} when it does not settle in time.
   */
  run(handler: ResolvedHandler, event: Event, attempt: number): Promise<void> {
    return runWithTimeout(
      (signal) => handler.handler.handle(event, this.context(handler.name, attempt, signal)),
      handler.timeoutMs,
      () => new HandlerTimeoutError(handler.name, event.id, handler.timeoutMs),
    );
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
