import type { EventLog, LogEntry } from '../bus/event-log.js';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Dispatcher } from './dispatcher.js';
import type { HandlerJob } from './handler-job.js';

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
  /** Enqueues async handler and retry jobs in one round trip. */
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
 */
export async function runDrain(deps: DrainDeps): Promise<DrainResult> {
  const { log, limits, consumer } = deps;
  const deadline = Date.now() + limits.ttlMs;
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
    const count = Math.min(limits.batchSize, limits.maxEvents - handled);
    let entries: LogEntry[] = [];
    if (now >= nextClaimAt) {
      entries = await log.claimStale(consumer, limits.claimStaleAfterMs, count);
      nextClaimAt = now + Math.max(1, Math.floor(limits.claimStaleAfterMs / 2));
    }
    if (entries.length === 0) {
      entries = await log.read(consumer, count, Math.max(1, Math.min(limits.blockMs, deadline - now)));
    }
    if (entries.length === 0) continue;
    const jobs: HandlerJob[] = [];
    const deadLetters: DeadLetter[] = [];
    for (const entry of entries) {
      const drained = await deps.dispatcher.drainOne(entry.payload);
      jobs.push(...drained.jobs);
      deadLetters.push(...drained.deadLetters);
    }
    await Promise.all([
      jobs.length > 0 ? deps.enqueue(jobs) : undefined,
      deadLetters.length > 0 ? deps.deadLetters.add(deadLetters) : undefined,
    ]);
    await log.ack(entries.map((e) => e.entryId));
    handled += entries.length;
  }
  const backlog = await log.backlog();
  await log.removeConsumer(consumer);
  return { consumer, handled, reason, backlog };
}
