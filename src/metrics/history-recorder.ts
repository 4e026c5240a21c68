import type { BusObserver } from '../handlers/bus-observer.js';
import { describeError, type Logger } from '../support/logger.js';
import { PeriodicTask } from '../support/periodic-task.js';
import { limitRepeats } from '../support/repeat-limit.js';
import type { HistorySample, HistoryStore } from './history-store.js';

/** The counters a process adds up between flushes. */
type Counter = 'published' | 'handled' | 'failed' | 'retried' | 'deadLettered';

/** The backlog as a worker's process samples it at a flush. */
export interface BacklogSample {
  /** Events published and not yet drained. */
  readonly backlog: number;
  /** Age of the oldest of them in ms, 0 when none waits. */
  readonly backlogAgeMs: number;
}

/** What a {@link HistoryRecorder} is built from. */
export interface HistoryRecorderParts {
  /** Where the counts go (`transport.history`). */
  readonly store: HistoryStore;
  /** How often to flush (`history.flushEveryMs`). */
  readonly flushEveryMs: number;
  /** Where a failed flush is logged (repeats thinned out). */
  readonly logger: Logger;
  /** The backlog now, or `undefined` when this process samples none (it runs no worker). */
  readonly sample: () => Promise<BacklogSample> | undefined;
}

/** The code logged with a flush that failed. */
export const HISTORY_FLUSH_FAILED = 'COMMITBUS_HISTORY_FLUSH_FAILED';

const NOTHING: Readonly<Record<Counter, number>> = {
  published: 0,
  handled: 0,
  failed: 0,
  retried: 0,
  deadLettered: 0,
};

/**
 * Counts, in this process, what the bus publishes and what its handler runs
 * do (through {@link HistoryRecorder.observer}), and adds it into the
 * store's current minute every `flushEveryMs`, with the backlog sampled
 * where a worker runs. Its timer starts at the first count or
 * {@link HistoryRecorder.start}, and keeps no process alive; a flush with
 * nothing to say stores nothing. A flush that fails (the transport is away)
 * is logged (`COMMITBUS_HISTORY_FLUSH_FAILED`, repeats thinned out) and
 * keeps its counts for the next flush: they land in the minute that flush
 * stores them in. It never throws into the work it counts.
 */
export class HistoryRecorder {
  /** The hooks that count handler runs, retries and dead letters. */
  readonly observer: BusObserver;
  private counts: Record<Counter, number> = { ...NOTHING };
  private readonly logger: Logger;
  private task: PeriodicTask | undefined;
  private closed = false;

  constructor(private readonly parts: HistoryRecorderParts) {
    this.logger = limitRepeats(parts.logger);
    this.observer = {
      onHandled: () => this.add('handled', 1),
      onHandlerFailed: () => this.add('failed', 1),
      onRetry: () => this.add('retried', 1),
      onDeadLetter: () => this.add('deadLettered', 1),
    };
  }

  /** Counts `count` events published by this process. */
  published(count: number): void {
    this.add('published', count);
  }

  /** Starts the flushes now, if they have not started (a worker starting, or the first count). */
  start(): void {
    if (this.task !== undefined || this.closed) return;
    this.task = new PeriodicTask('history flush', this.parts.flushEveryMs, () => this.flush(), this.logger);
    this.task.start({ now: false });
  }

  /** Adds what was counted (and the backlog, where sampled) into the store's minute; never rejects. */
  async flush(): Promise<void> {
    const counts = this.counts;
    this.counts = { ...NOTHING };
    let sample: BacklogSample | undefined;
    try {
      sample = await this.parts.sample();
    } catch (error) {
      this.failed("the bus's history could not sample the backlog; this flush records none", error);
    }
    if (sample === undefined && Object.values(counts).every((n) => n === 0)) return;
    const recorded: HistorySample = {
      ...counts,
      backlog: sample?.backlog ?? null,
      backlogAgeMs: sample?.backlogAgeMs ?? null,
    };
    try {
      await this.parts.store.record(recorded);
    } catch (error) {
      // Kept for the next flush: five numbers, however long the store is away.
      for (const counter of Object.keys(counts) as Counter[]) this.counts[counter] += counts[counter];
      this.failed("the bus's history could not be stored; its counts are kept for the next flush", error);
    }
  }

  /** Stops the flushes and flushes once more. */
  async close(): Promise<void> {
    this.closed = true;
    await this.task?.stop();
    await this.flush();
  }

  private add(counter: Counter, n: number): void {
    this.counts[counter] += n;
    this.start();
  }

  private failed(message: string, error: unknown): void {
    this.logger.warn({ code: HISTORY_FLUSH_FAILED, error: describeError(error).message }, message);
  }
}
