import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import { UnknownStoreEventTypeError } from './errors/unknown-store-event-type.error.js';
import type { SubEventRecordView } from './event-model.js';
import { prepareEvent } from './prepare-event.js';
import type { StoreEventInput, SubEventRecord } from './store-event.js';

/**
 * The sub-events one transact callback dispatches (`ctx.dispatch`). Each
 * runs after the one dispatched before it, awaited or not, and the step
 * ends only once every one has run ({@link settle}): a dispatch nobody
 * awaited is never left out of the commit. A dispatch that fails (or is
 * invalid) fails the whole event, even when the callback caught it; a
 * dispatch made after the step ended is refused.
 */
export class TransactDispatches {
  private tail: Promise<unknown> = Promise.resolve();
  private failure: { readonly error: unknown } | undefined;
  private calls = 0;
  private closed = false;

  constructor(
    private readonly model: string,
    private readonly known: ReadonlySet<string>,
    private readonly run: (sub: StoreEventInput) => Promise<SubEventRecord>,
    /** The public error a failure of the sub-event (a CycleFailure) is reported to the caller as. */
    private readonly reason: (error: unknown) => unknown,
  ) {}

  /** `ctx.dispatch`: queues the sub-event behind the ones before it; resolves with its record. */
  dispatch(type: unknown, data?: unknown): Promise<SubEventRecordView> {
    const result = this.schedule(type, data);
    // Not awaited by the callback: its failure fails the event, it must not also be an unhandled rejection.
    result.catch(() => {});
    return result;
  }

  /**
   * Waits until every dispatch made so far, and any made while they ran,
   * has run; then refuses new ones and throws the first failure.
   */
  async settle(): Promise<void> {
    for (;;) {
      const seen = this.calls;
      await this.tail;
      // Callbacks chained on a dispatch's promise run before this turn ends: let them dispatch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.calls === seen) break;
    }
    this.closed = true;
    if (this.failure !== undefined) throw this.failure.error;
  }

  private schedule(type: unknown, data: unknown): Promise<SubEventRecord> {
    if (this.closed) {
      return Promise.reject(
        new EventStoreUsageError(
          `ctx.dispatch("${String(type)}") was called after the transact callback of model ${this.model} settled: its event is handled already. Call (or await) every ctx.dispatch before the callback returns`,
        ),
      );
    }
    this.calls++;
    let sub: StoreEventInput;
    try {
      sub = this.check(type, data);
    } catch (error) {
      this.fail(error);
      return Promise.reject(error);
    }
    const running = this.tail.then(async () => {
      if (this.failure !== undefined) throw this.reason(this.failure.error);
      try {
        return await this.run(sub);
      } catch (error) {
        this.fail(error);
        throw this.reason(error);
      }
    });
    this.tail = running.catch(() => {});
    return running;
  }

  // As at dispatch: a known type, data JSON carries unchanged (a copy: the caller's object stays theirs).
  private check(type: unknown, data: unknown): StoreEventInput {
    const refuse = (t: string): never => {
      throw new UnknownStoreEventTypeError(t, [...this.known]);
    };
    const prepared = prepareEvent(type, data, {
      maxEventBytes: Number.MAX_SAFE_INTEGER,
      knownTypes: this.known,
      onUnknown: refuse,
    });
    return { type: prepared.type, data: prepared.data };
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
  }
}
