import type { DeadLetterKind } from '../dead-letters/dead-letter.js';
import type { BusObserver } from '../handlers/bus-observer.js';
import type { RuleKind } from '../handlers/handler-gate.js';
import type { JobCounts } from '../handlers/handler-job-counts.js';
import type { Logger } from '../support/logger.js';

/** The figures of `bus.status()` the metrics' gauges show. */
export interface MetricsStatus {
  /** Published events not yet drained. */
  readonly backlog: {
    readonly events: number;
    readonly oldestAgeMs: number | null;
    readonly ordered: number;
    readonly delayed: number;
  };
  /** Runs dropped by blocks so far. */
  readonly dropped: number;
  /** Stored dead letters by kind, and those the retention dropped so far (a count that only grows). */
  readonly deadLetters: {
    readonly byKind: Readonly<Partial<Record<DeadLetterKind, number>>>;
    readonly dropped: number;
  };
  /** Halted order keys (lanes). */
  readonly halted: { readonly count: number };
  /** Re-bases of order keys' lanes so far (a count that only grows). */
  readonly rebased: { readonly count: number };
  /** Handler jobs and parked work per handler. */
  readonly handlers: Readonly<Record<string, JobCounts & { readonly parked: number }>>;
  /** The outbox's pending rows and the oldest one's age, or null without an outbox. */
  readonly outbox: { readonly pending: number; readonly oldestAgeMs: number | null } | null;
  /** The bus's workers alive now (beating within `workers.goneAfterMs`). */
  readonly workers: { readonly alive: number };
  /** The pause and block rules in force. */
  readonly rules: readonly { readonly kind: RuleKind }[];
  /** The names of the transport's BullMQ queues that are paused. */
  readonly pausedQueues: readonly string[];
}

/** What {@link createBusMetrics} reads a bus through (an `EventBus` is one). */
export interface MetricsSource {
  /** Adds an observer of the bus's publishing and handler runs; returns its removal. */
  observe(observer: BusObserver): () => void;
  /** Whether one of the bus's event classes has `handlingKey`: a key none has is not used as a label. */
  knowsHandlingKey(handlingKey: string): boolean;
  /** Where a failed status read during a scrape is logged. */
  readonly logger?: Logger;
  /** A snapshot of the bus's work, read at scrape time for the gauges; without it there are none. */
  status?(): Promise<MetricsStatus>;
  /**
   * The bus's handlers: every (handler, handling key) a run can have, whose
   * counters start at zero so `rate()` and `increase()` see the first run.
   */
  readonly handlers?: { runs(): readonly { readonly handler: string; readonly key: string }[] };
  /** The bus's transport: its BullMQ queues, if any, each get a `bullmq_queue_paused` sample (0 while running). */
  readonly transport?: { readonly bullmqQueues?: readonly { readonly name: string }[] };
}
