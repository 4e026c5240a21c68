import { describeError, type Logger } from '../support/logger.js';
import { insideWriter } from './event-cycle.js';
import type { HistoryEvent, StepFailure } from './store-event.js';

/** A failure the writer recorded: an event it halted at (each failed attempt), or one a reducer rejected. */
export interface StoreFailure {
  /** `halted`: the event failed and stays queued, later events wait; `rejected`: a reducer's `esFail`, the store went on. */
  readonly kind: 'halted' | 'rejected';
  /** The event's history row as recorded (`queued` with its `attempts` when halted, `rejected` otherwise). */
  readonly event: HistoryEvent;
  /** The step, model, sub-event path and message (a rejection's reason). */
  readonly failure: StepFailure;
  /** When halted: how long until the writer retries it, in ms. */
  readonly retryInMs?: number;
}

/** Hears the writer's failures (see {@link StoreFailure}); called in the writer process, never awaited by it. */
export type FailureListener = (notice: StoreFailure) => void | Promise<void>;

/**
 * Reports what the writer recorded as failed: logs it and tells the failure
 * listeners (`store.onFailure`). A listener's own failure is logged; the
 * writer never waits for one.
 */
export class FailureNotices {
  private readonly listeners: FailureListener[] = [];

  constructor(private readonly logger: Logger) {}

  /** Adds a listener; returns its remover. */
  add(listener: FailureListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** The writer halted at `event` (its row after the failed attempt was recorded). */
  halted(event: HistoryEvent, failure: StepFailure, retryInMs: number): void {
    this.logger.error(
      {
        v: event.v,
        type: event.type,
        attempts: event.attempts,
        failure: { ...failure, stack: undefined },
        retryInMs,
      },
      `event store halted at v${event.v} (${event.type}): ${failure.step}${failure.model ? ` of model ${failure.model}` : ''} failed: ${failure.message}. Later events wait; fix the cause and call store.retry(), or store.correct(v, data), or store.skip(v)`,
    );
    this.tell({ kind: 'halted', event, failure, retryInMs });
  }

  /** Of the events a batch finished, those a reducer rejected. */
  rejected(events: readonly HistoryEvent[]): void {
    for (const event of events) {
      if (event.status !== 'rejected' || event.error === undefined) continue;
      const failure = event.error;
      this.logger.info(
        { v: event.v, type: event.type, model: failure.model, reason: failure.message },
        `event store: v${event.v} (${event.type}) was rejected${failure.model ? ` by model ${failure.model}` : ''}: ${failure.message}`,
      );
      this.tell({ kind: 'rejected', event, failure });
    }
  }

  private tell(notice: StoreFailure): void {
    for (const listener of this.listeners) {
      void Promise.resolve()
        .then(() => insideWriter.run('listener', () => listener(notice)))
        .catch((error: unknown) => {
          this.logger.warn(
            { v: notice.event.v, kind: notice.kind, error: describeError(error) },
            'event store: a failure listener failed',
          );
        });
    }
  }
}
