import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Dispatcher } from './dispatcher.js';
import { drainBatch } from './drain-batch.js';
import type { EventLog, LogEntry } from './event-log.js';
import type { HandlerJob } from './handler-job.js';
import { observedDeadLetters } from './observed-dead-letters.js';

/** Limits of one drain: the RFC's `max_events` and `ttl`, plus batching. */
export interface DrainLimits {
  /** Events to handle before stopping. */
  readonly maxEvents: number;
  /** Lifetime in milliseconds. */
  readonly ttlMs: number;
  /** Events read per round trip. */
  readonly batchSize: number;
  /** Longest wait of one blocking read. */
  readonly blockMs: number;
  /** Pending entries idle this long are taken over from dead drains. */
  readonly claimStaleAfterMs: number;
}

/** Why a drain stopped. */
export type DrainStopReason = 'maxEvents' | 'ttl' | 'shutdown';

/** What one drain did. */
export interface DrainResult {
  /** Consumer name the drain read as. */
  readonly consumer: string;
  /** Events it handled (sync handlers run, async jobs enqueued). */
  readonly handled: number;
  /** Why it stopped. */
  readonly reason: DrainStopReason;
  /** Events still in the log when it stopped. */
  readonly backlog: number;
}

/** What a drain needs. */
export interface DrainDeps {
  /** Where events wait. */
  readonly log: EventLog;
  /** Runs handlers. */
  readonly dispatcher: Dispatcher;
  /**
   * Enqueues async handler and retry jobs in one round trip. Rejects with
   * `TransportUnavailableError` when the transport cannot take work now; any
   * other rejection refuses the jobs.
   */
  readonly enqueue: (jobs: HandlerJob[]) => Promise<void>;
  /** Keeps what was given up: undecodable payloads, sync handlers out of attempts. */
  readonly deadLetters: DeadLetterStore;
  /** Limits. */
  readonly limits: DrainLimits;
  /** Unique consumer name. */
  readonly consumer: string;
  /** Polled between batches: true once the worker shuts down. */
  readonly stopping: () => boolean;
}

/**
 * The RFC's event-worker task: reads batches of events and dispatches each,
 * until `maxEvents` are handled, `ttlMs` has passed, or the worker stops.
 * Each batch's jobs and dead letters are stored before the batch is
 * acknowledged, so a crash in between redelivers events rather than losing
 * them (dead-letter ids are stable, so a redelivery replaces its letters).
 * One event cannot fail the rest of its batch (see {@link drainBatch}).
 *
 * Entries a dead drain left pending are taken over one at a time, each
 * handled and acknowledged on its own before the next is claimed: a claim
 * counts a delivery, so only the entry being handled when a drain dies gains
 * one. A process-killing event thus reaches `maxDeliveries` and is given up
 * as `crashed`, while the healthy events of its batch are acknowledged at
 * their second delivery.
 */
export async function runDrain(deps: DrainDeps): Promise<DrainResult> {
  const { log, limits, consumer } = deps;
  const deadline = Date.now() + limits.ttlMs;
  const deadLetters = observedDeadLetters(deps.deadLetters, deps.dispatcher.pipeline.observer);
  const batch = async (entries: readonly LogEntry[]): Promise<number> => {
    const done = await drainBatch(entries, {
      drainOne: (entry) => deps.dispatcher.drainOne(entry.payload, entry.deliveries),
      enqueue: deps.enqueue,
      deadLetters,
      logger: deps.dispatcher.pipeline.logger,
      retried: (retry) => deps.dispatcher.pipeline.observer.notify('onRetry', retry),
    });
    await log.ack(done);
    return done.length;
  };
  let handled = 0;
  let nextClaimAt = 0;
  let reason: DrainStopReason = 'ttl';
  for (;;) {
    if (deps.stopping()) {
      reason = 'shutdown';
      break;
    }
    if (handled >= limits.maxEvents) {
      reason = 'maxEvents';
      break;
    }
    const now = Date.now();
    if (now >= deadline) break;
    if (now >= nextClaimAt) {
      const stale = await log.claimStale(consumer, limits.claimStaleAfterMs);
      if (stale !== undefined) {
        // Claim again at once: a dead drain's batch comes back one entry after the other.
        handled += await batch([stale]);
        continue;
      }
      nextClaimAt = now + Math.max(1, Math.floor(limits.claimStaleAfterMs / 2));
    }
    const count = Math.min(limits.batchSize, limits.maxEvents - handled);
    const entries = await log.read(consumer, count, Math.max(1, Math.min(limits.blockMs, deadline - now)));
    if (entries.length > 0) handled += await batch(entries);
  }
  const backlog = await log.backlog();
  await log.removeConsumer(consumer);
  return { consumer, handled, reason, backlog };
}
