import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { SoloGate } from '../support/solo-gate.js';
import { inInternalSpan } from '../tracing/internal-span.js';
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
  /**
   * The worker process's gate, shared by all its drains and handler runs: a
   * taken-over entry is claimed and handled alone (see {@link runDrain}).
   */
  readonly solo: SoloGate;
}

/**
 * The RFC's event-worker task: reads batches of events and dispatches each,
 * until `maxEvents` are handled, `ttlMs` has passed, or the worker stops.
 * Each batch's jobs and dead letters are stored before the batch is
 * acknowledged, so a crash in between redelivers events rather than losing
 * them (dead-letter ids are stable, so a redelivery replaces its letters).
 * One event cannot fail the rest of its batch (see {@link drainBatch}).
 * A batch's acknowledgement is in flight while the next batch is read (one
 * at a time: the next acknowledgement waits for it), so handling does not
 * wait a round trip per batch; the drain ends once it landed.
 *
 * Entries a dead drain left pending are taken over one at a time, each
 * claimed, handled and acknowledged alone in the process (`deps.solo`: the
 * other drains and handler runs of the process finish the event they are on
 * and start no other meanwhile) before the next is claimed. A claim counts a
 * delivery, so if the process dies now only that entry gains one: a
 * process-killing event thus reaches `maxDeliveries` and is given up as
 * `crashed`, while the healthy events of its batch are acknowledged at their
 * second delivery. The gate is taken only when an entry is stale
 * (`EventLog.hasStale`), so drains run side by side otherwise.
 */
export async function runDrain(deps: DrainDeps): Promise<DrainResult> {
  const { log, limits, consumer } = deps;
  const deadline = Date.now() + limits.ttlMs;
  const deadLetters = observedDeadLetters(deps.deadLetters, deps.dispatcher.pipeline.observer);
  const drainOne = (entry: LogEntry) => deps.dispatcher.drainOne(entry.payload, entry.deliveries);
  // The acknowledgement of the last batch, still in flight while the next is read: one at a time.
  let acking: Promise<void> | undefined;
  const acked = async () => {
    const pending = acking;
    acking = undefined;
    await pending;
  };
  /**
   * Handles and acknowledges entries; `alone` when the caller holds the gate
   * alone already, and then it waits for the acknowledgement; else the next
   * read goes out while it is in flight.
   */
  const batch = async (entries: readonly LogEntry[], alone = false): Promise<number> => {
    const done = await inInternalSpan(
      'drain batch',
      () => ({
        'commitbus.drain.consumer': consumer,
        'messaging.batch.message_count': entries.length,
        'commitbus.drain.taken_over': alone,
      }),
      () =>
        drainBatch(entries, {
          drainOne: alone ? drainOne : (entry) => deps.solo.shared(() => drainOne(entry)),
          enqueue: deps.enqueue,
          deadLetters,
          logger: deps.dispatcher.pipeline.logger,
          retried: (retry) => deps.dispatcher.pipeline.observer.notify('onRetry', retry),
        }),
      (acknowledged) => ({ 'commitbus.drain.acknowledged': acknowledged.length }),
    );
    await acked();
    const ack = log.ack(done);
    // Awaited by the next batch or the drain's end, which see its failure.
    ack.catch(() => {});
    acking = ack;
    if (alone) await acked();
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
      await acked();
      const taken = (await log.hasStale(limits.claimStaleAfterMs))
        ? await deps.solo.alone(async () => {
            const stale = await log.claimStale(consumer, limits.claimStaleAfterMs);
            return stale === undefined ? undefined : batch([stale], true);
          })
        : undefined;
      if (taken !== undefined) {
        // Claim again at once: a dead drain's batch comes back one entry after the other.
        handled += taken;
        continue;
      }
      nextClaimAt = now + Math.max(1, Math.floor(limits.claimStaleAfterMs / 2));
    }
    const count = Math.min(limits.batchSize, limits.maxEvents - handled);
    const entries = await log.read(consumer, count, Math.max(1, Math.min(limits.blockMs, deadline - now)));
    if (entries.length > 0) handled += await batch(entries);
  }
  await acked();
  const backlog = await log.backlog();
  await log.removeConsumer(consumer);
  return { consumer, handled, reason, backlog };
}
