import type { Event } from '../events/event.js';
import { IdempotencyNotConfiguredError } from '../idempotency/errors/idempotency-not-configured.error.js';
import type { Logger } from '../support/logger.js';
import { type HandlerSpan, inHandlerSpan, noteIdempotentSkip } from '../tracing/handler-span.js';
import { HandlerTimeoutError } from './errors/handler-timeout.error.js';
import { asError } from './errors/thrown-value.error.js';
import type { HandlerContext } from './handler.js';
import type { ResolvedHandler } from './handler-table.js';
import type { IdempotencyGuard } from './idempotency-guard.js';
import { runWithTimeout } from './run-with-timeout.js';

/**
 * Runs one handler for one event: within its timeout, in its
 * completion-recording unit of work when it is idempotent, with the context
 * handlers get. What it rejects with is always an `Error`.
 */
export class HandlerRunner {
  private underWay = 0;

  constructor(
    private readonly publish: (events: readonly Event[]) => Promise<void>,
    private readonly logger: Logger,
    private readonly idempotency?: IdempotencyGuard,
  ) {}

  /**
   * Runs `handler` for `event` as its attempt `attempt`. Rejects with what the
   * handler threw (a value that is not an `Error` wrapped in
   * `ThrownValueError`), or {@link HandlerTimeoutError} when it does not
   * settle within its `timeoutMs`. The run is traced: a CONSUMER span, child
   * of the publisher's, active for the handler (see `tracing/handler-span.ts`).
   */
  run(handler: ResolvedHandler, event: Event, attempt: number): Promise<void> {
    this.underWay += 1;
    return inHandlerSpan({ event, handler: handler.name, attempt }, (span) =>
      runWithTimeout(
        (signal) => this.invoke(handler, event, this.context(handler.name, attempt, signal), span),
        handler.timeoutMs,
        () => new HandlerTimeoutError(handler.name, event.id, handler.timeoutMs),
      ),
    ).finally(() => {
      this.underWay -= 1;
    });
  }

  /** How many handler runs are under way (started, not yet settled or timed out). */
  get busy(): number {
    return this.underWay;
  }

  private async invoke(
    handler: ResolvedHandler,
    event: Event,
    ctx: HandlerContext,
    span: HandlerSpan,
  ): Promise<void> {
    // Wrapped at the call, so the unit of work, the timeout and the transport only ever see Errors.
    const call = async (context: HandlerContext) => {
      try {
        await handler.handler.handle(event, context);
      } catch (thrown) {
        throw asError(thrown, handler.name);
      }
    };
    if (!handler.idempotent) return call(ctx);
    if (this.idempotency === undefined) {
      throw new IdempotencyNotConfiguredError(handler.name, 'the bus has no dataSource');
    }
    const outcome = await this.idempotency.run(event.id, handler.name, (uow) => call({ ...ctx, uow }));
    if (outcome === 'skipped') {
      noteIdempotentSkip(span);
      this.logger.info(
        { eventId: event.id, handler: handler.name },
        'idempotent handler already ran for this event; skipped',
      );
    }
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
