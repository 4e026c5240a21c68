import { randomUUID } from 'node:crypto';
import type { DeadLetterReason } from '../../dead-letters/dead-letter.js';
import type { DeadLetterStore } from '../../dead-letters/dead-letter-store.js';
import { FailureLog } from '../../support/failure-log.js';
import { describeError, type Logger, silentLogger } from '../../support/logger.js';
import type { Batch } from '../batch.js';
import type { BatchStore } from '../batch-store.js';
import type { DeliveryAttempt, DeliveryAttemptLog } from '../delivery-attempt-log.js';
import type { RouterMetrics } from '../router-metrics.js';
import type { SubscriberRecord } from '../subscriber.js';
import type { SubscriberStore } from '../subscriber-store.js';
import { deliveryRetryDelay } from './delivery-backoff.js';
import type { DeliverySettings } from './delivery-settings.js';
import { batchDeadLetter } from './webhook-dead-letter.js';
import type { WebhookSender } from './webhook-sender.js';
import type { DeliveryOutcome } from './webhook-target.js';

/** What a {@link DeliveryWorker} works with. */
export interface DeliveryWorkerDeps {
  /** The queue of batches. */
  readonly batches: BatchStore;
  /** Where callbacks, credentials and secrets are read. */
  readonly subscribers: Pick<SubscriberStore, 'getSubscriber'>;
  /** Where each attempt is logged for operators, when the stores keep a log; a failure to log is ignored. */
  readonly attempts?: Pick<DeliveryAttemptLog, 'record'>;
  /** Where batches given up go. */
  readonly deadLetters: Pick<DeadLetterStore, 'add' | 'remove'>;
  /** Sends the batches; the worker does not close it. */
  readonly sender: Pick<WebhookSender, 'send'>;
  /** Settings, defaults filled in (see `deliverySettings`). */
  readonly settings: DeliverySettings;
  /** Counters and histograms, when metrics are served. */
  readonly metrics?: RouterMetrics;
  /** @defaultValue silent */
  readonly logger?: Logger;
  /** This worker's id, for leases. @defaultValue a random UUID */
  readonly id?: string;
  /** The clock. @defaultValue `Date.now` */
  readonly now?: () => number;
}

/**
 * Delivers ready batches: waits for work, takes up to `concurrency` batches
 * under a lease, POSTs them concurrently, then acks a 2xx, nacks a failure
 * with a per-subscriber backoff, or dead-letters a batch past `maxAttempts`
 * or `maxAgeMs` (the letter is written before the batch is discarded).
 * `close()` stops taking and waits for deliveries under way.
 */
export class DeliveryWorker {
  /** This worker's id (its leases). */
  readonly id: string;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly logger: Logger;
  private readonly reported = new Map<string, number>();
  private readonly now: () => number;
  private loop: Promise<void> | undefined;
  private closing = false;
  private wake: (() => void) | undefined;
  private waiting: Promise<void> | undefined;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.id = deps.id ?? randomUUID();
    this.logger = deps.logger ?? silentLogger;
    this.now = deps.now ?? Date.now;
  }

  /** Starts the loop. */
  start(): this {
    this.loop ??= this.run();
    return this;
  }

  /** Stops taking batches and resolves once the deliveries under way are settled. */
  async close(): Promise<void> {
    this.closing = true;
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async run(): Promise<void> {
    const { settings } = this.deps;
    const failures = new FailureLog(this.logger);
    while (!this.closing) {
      const free = settings.concurrency - this.inFlight.size;
      try {
        const taken =
          free > 0
            ? await this.deps.batches.take({
                worker: this.id,
                limit: free,
                now: this.now(),
                leaseMs: settings.leaseMs,
                maxInFlightPerSubscriber: settings.maxInFlightPerSubscriber,
              })
            : [];
        failures.succeeded();
        const read = this.readOncePerSubscriber();
        for (const batch of taken) this.track(this.deliver(batch, read(batch.subscriber)));
        if (taken.length === 0 || taken.length === free) await this.idle();
      } catch (error) {
        failures.failed(
          { worker: this.id, error: describeError(error).message },
          'delivery worker could not take batches; it tries again',
        );
        await this.idle();
      }
    }
  }

  // Until work may be there, a delivery ends (freeing a slot or a subscriber's turn), or close().
  private async idle(): Promise<void> {
    // One wait on the store at a time: a blocking wait on Redis queues behind the one before.
    this.waiting ??= this.deps.batches
      .waitForWork(this.deps.settings.idleWaitMs)
      .catch(() => new Promise<void>((resolve) => setTimeout(resolve, this.deps.settings.idleWaitMs)))
      .finally(() => {
        this.waiting = undefined;
      });
    await Promise.race([
      this.waiting,
      new Promise<void>((resolve) => {
        this.wake = resolve;
      }),
    ]);
    this.wake = undefined;
  }

  private track(delivery: Promise<void>): void {
    const tracked = delivery.finally(() => {
      this.inFlight.delete(tracked);
      this.wake?.();
    });
    this.inFlight.add(tracked);
  }

  /**
   * Reads for one round of takes: each subscriber's settings (callback, uuid,
   * signing secrets) read once, after the take, so a change saved before a
   * batch was taken applies to that batch's delivery.
   */
  private readOncePerSubscriber(): (name: string) => Promise<SubscriberRecord | undefined> {
    const reads = new Map<string, Promise<SubscriberRecord | undefined>>();
    return (name) => {
      let read = reads.get(name);
      if (read === undefined) {
        read = this.deps.subscribers.getSubscriber(name);
        reads.set(name, read);
      }
      return read;
    };
  }

  private async deliver(batch: Batch, read: Promise<SubscriberRecord | undefined>): Promise<void> {
    const { batches, metrics } = this.deps;
    try {
      const subscriber = await read;
      if (subscriber === undefined) {
        // Removed since: its batches go with it.
        await batches.discard(this.id, batch.id);
        return;
      }
      const spent = this.spent(batch);
      if (spent !== undefined) {
        const error = `given up before delivery ${batch.attempts + 1}: ${spent === 'crashed' ? `its ${batch.attempts} attempts were used up, the last by workers that stopped while delivering it` : 'older than maxAgeMs'}`;
        await this.giveUp(batch, spent, error, batch.attempts);
        return;
      }
      const startedAt = this.now();
      const started = performance.now();
      const outcome = await this.deps.sender.send(subscriber, batch.id, batch.events);
      const seconds = (performance.now() - started) / 1000;
      this.log(batch, outcome, startedAt, seconds);
      metrics?.requestDuration.observe({ outcome: outcome.ok ? 'success' : 'failure' }, seconds);
      if (outcome.ok) {
        const acked = await batches.ack(this.id, batch.id);
        if (acked) {
          metrics?.delivered.inc({ subscriber: batch.subscriber }, batch.events.length);
          metrics?.deliveryLatency.observe(Math.max(0, this.now() - batch.createdAt) / 1000);
        } else {
          this.logger.warn(
            { worker: this.id, batch: batch.id, subscriber: batch.subscriber },
            'a batch was delivered after its lease ended; it may be delivered again (raise leaseMs)',
          );
        }
        return;
      }
      metrics?.failed.inc({ subscriber: batch.subscriber });
      await this.failed(batch, outcome.error);
    } catch (error) {
      // The store failed: the lease brings the batch back.
      this.logger.warn(
        {
          worker: this.id,
          batch: batch.id,
          subscriber: batch.subscriber,
          error: describeError(error).message,
        },
        'could not settle a delivered batch; it comes back after its lease',
      );
    }
  }

  // The log is for operators: delivery goes on whether it was written or not.
  private log(batch: Batch, outcome: DeliveryOutcome, at: number, seconds: number): void {
    const attempt: DeliveryAttempt = {
      at,
      batch: batch.id,
      events: batch.events.length,
      ok: outcome.ok,
      status: outcome.ok ? outcome.status : (outcome.status ?? null),
      error: outcome.ok ? null : outcome.error,
      durationMs: Math.round(seconds * 1000),
    };
    this.deps.attempts?.record(batch.subscriber, attempt).catch((error: unknown) => {
      this.logger.warn(
        { subscriber: batch.subscriber, error: describeError(error).message },
        'could not log a delivery attempt for the dashboard; delivery goes on',
      );
    });
  }

  private async failed(batch: Batch, error: string): Promise<void> {
    const { settings, batches } = this.deps;
    const now = this.now();
    const attempts = batch.attempts + 1;
    const reason =
      attempts >= settings.maxAttempts
        ? 'exhausted'
        : now - batch.createdAt >= settings.maxAgeMs
          ? 'expired'
          : undefined;
    if (reason === undefined) {
      const health = Math.max(0, batch.health - 2);
      const retryAt = now + deliveryRetryDelay(settings.backoff, health, attempts);
      await batches.nack(this.id, batch.id, retryAt, error);
      this.reportFailure(batch, error, attempts, retryAt - now);
      return;
    }
    await this.giveUp(batch, reason, error, attempts);
  }

  // One line per subscriber per minute at most: a failing subscriber is visible without flooding the log.
  private reportFailure(batch: Batch, error: string, attempts: number, retryInMs: number): void {
    const now = this.now();
    const last = this.reported.get(batch.subscriber);
    if (last !== undefined && now - last < 60_000) return;
    this.reported.set(batch.subscriber, now);
    this.logger.warn(
      { worker: this.id, subscriber: batch.subscriber, batch: batch.id, attempts, retryInMs, error },
      `deliveries to subscriber ${batch.subscriber} fail (${error}); batch retried in ${Math.round(retryInMs / 1000)} s, given up after ${this.deps.settings.maxAttempts} attempts`,
    );
  }

  /**
   * A batch taken with its attempts already used up came back from leases
   * that ended (its workers died or hung while delivering it, e.g. killed by
   * it): it is given up as `crashed` instead of sent again; one past
   * `maxAgeMs` as `expired`.
   */
  private spent(batch: Batch): DeadLetterReason | undefined {
    const { settings } = this.deps;
    if (batch.attempts >= settings.maxAttempts) return 'crashed';
    if (this.now() - batch.createdAt >= settings.maxAgeMs) return 'expired';
    return undefined;
  }

  // The letter is written first: a crash in between leaves the batch to be given up again, as the same letter.
  private async giveUp(
    batch: Batch,
    reason: DeadLetterReason,
    error: string,
    attempts: number,
  ): Promise<void> {
    const { batches, deadLetters } = this.deps;
    const letter = batchDeadLetter(batch, reason, error, new Date(this.now()));
    await deadLetters.add([letter]);
    if (!(await batches.discard(this.id, batch.id))) {
      // Another worker holds it now (this lease ended): it is not dead, so neither is its letter.
      await deadLetters.remove([{ id: letter.id, deadAt: letter.deadAt }]);
      this.logger.warn(
        { worker: this.id, batch: batch.id, subscriber: batch.subscriber },
        'a batch to give up was taken over by another worker after its lease ended; that worker goes on with it',
      );
      return;
    }
    this.deps.metrics?.deadLettered.inc({ subscriber: batch.subscriber }, batch.events.length);
    this.logger.warn(
      { worker: this.id, batch: batch.id, subscriber: batch.subscriber, attempts, reason, error },
      `a batch of ${batch.events.length} event(s) was given up and kept as dead letter ${letter.id}`,
    );
  }
}
