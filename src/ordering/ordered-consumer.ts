import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { FailureLog } from '../support/failure-log.js';
import { describeError, type Logger } from '../support/logger.js';
import { PeriodicTask } from '../support/periodic-task.js';
import { type RetryPolicy, retryDelay } from '../support/retry-policy.js';
import type { SoloGate } from '../support/solo-gate.js';
import { parseLane } from './lane.js';
import type { LaneRunner } from './lane-runner.js';
import type { LaneEvent, LaneStep, OrderingStore, StepReply } from './ordering-store.js';

/** Settings of an {@link OrderedConsumer}. */
export interface OrderedConsumerOptions {
  /** The lanes, with a connection of this worker's own for blocking waits. */
  readonly store: OrderingStore;
  /** Handles one lane event. */
  readonly runner: LaneRunner;
  /** Lanes (order keys) handled at once by this worker. */
  readonly concurrency: number;
  /** How long this worker's lanes stay its own without a renewal (option `ordering.leaseMs`). */
  readonly leaseMs: number;
  /** How often the lease is renewed and dead workers' lanes and due retries are swept. */
  readonly maintainEveryMs: number;
  /** Longest blocking wait for a lane. */
  readonly blockMs: number;
  /** Where problems are logged. */
  readonly logger: Logger;
  /**
   * The process's gate, shared with its drains and handler jobs: a lane event
   * runs as shared work, a redelivered one alone (see {@link SoloGate}).
   */
  readonly solo: SoloGate;
}

/** The wait between tries of a store call that failed (Redis away): 100 ms, doubling, at most 5 s. */
const STORE_RETRY: RetryPolicy = { type: 'exponential', delayMs: 100, maxDelayMs: 5_000 };

/** Events a worker handles on one lane before it puts the lane back in the queue (time-slicing). */
const EVENTS_PER_TURN = 100;

/**
 * Most steps per store call. A tick's steps go out as several calls at once
 * (pipelined on one connection), so the store works on the next call while
 * this process runs the lanes whose replies came back; one call for every
 * lane kept all lanes in step, Redis and this process taking turns instead
 * of working at the same time (measured with `npm run bench`).
 */
const STEPS_PER_CALL = 8;

/** A step waiting to be sent, and its caller. */
interface PendingStep {
  readonly step: LaneStep;
  readonly resolve: (reply: StepReply) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A worker's consumer of ordered lanes: takes lanes with work (up to
 * `concurrency` at once), runs each lane's events one after the other, and
 * records every outcome. Outcomes of all lanes finishing in the same tick go
 * to the store together, in calls of up to {@link STEPS_PER_CALL} steps sent
 * at once, each of which also hands back its lanes' next events. A lease,
 * renewed every `maintainEveryMs`, keeps the lanes this worker owns; when it
 * dies the lease lapses and any worker resumes them at the event they
 * stopped on.
 *
 * An event handed out again (`deliveries > 1`: its worker died or stalled
 * while holding it) runs alone, see {@link OrderedConsumer.runAlone}, so a
 * process-killing event only counts deliveries against itself.
 */
export class OrderedConsumer {
  /** This worker's id in the lanes' ownership records. */
  readonly worker = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: OrderingStore;
  private active = 0;
  private stopping = false;
  private readonly slotWaiters = new Set<() => void>();
  private batch: PendingStep[] = [];
  private intakeLoop: Promise<void> | undefined;
  private readonly maintenance: PeriodicTask;
  private readonly lanesDone = new Set<() => void>();
  private readonly blockMs: number;
  /** Until when (this process's clock) the last renewal holds the lease. */
  private leaseUntil = 0;
  /** The lane whose redelivered event runs alone (see {@link runAlone}), while it waits or runs. */
  private soloLane: string | undefined;
  /** Called whenever a lane stops running on this worker. */
  private readonly laneEnded = new Set<() => void>();

  constructor(private readonly options: OrderedConsumerOptions) {
    this.store = options.store;
    // A blocking wait must end well within the lease (see intake()).
    this.blockMs = Math.max(1, Math.min(options.blockMs, Math.floor(options.leaseMs / 3)));
    this.maintenance = new PeriodicTask(
      'ordered lanes upkeep',
      options.maintainEveryMs,
      () => this.renew(),
      options.logger,
    );
  }

  private async renew(): Promise<void> {
    const startedAt = Date.now();
    await this.store.maintain(this.worker, this.options.leaseMs);
    this.leaseUntil = startedAt + this.options.leaseMs;
  }

  /** Takes the lease and starts taking lanes. */
  async start(): Promise<this> {
    await this.renew();
    this.maintenance.start({ now: false });
    this.intakeLoop = this.intake();
    return this;
  }

  private async intake(): Promise<void> {
    const failures = new FailureLog(this.options.logger);
    while (!this.stopping) {
      if (this.active >= this.options.concurrency || this.soloLane !== undefined) {
        await new Promise<void>((resolve) => this.slotWaiters.add(resolve));
        continue;
      }
      // Take lanes only while the lease outlasts a blocking wait: a lane moved
      // to this worker after the sweep had given it up for dead would be in
      // a list no sweep reads (the store refuses takes without a lease too).
      if (Date.now() + this.blockMs >= this.leaseUntil) {
        this.maintenance.trigger();
        await sleep(Math.min(this.options.maintainEveryMs, this.blockMs));
        continue;
      }
      try {
        let events = await this.store.take(this.worker, this.options.concurrency - this.active);
        if (events.length === 0 && !this.stopping) {
          const one = await this.store.waitAndClaim(this.worker, this.blockMs);
          events = one === undefined ? [] : [one];
        }
        failures.succeeded();
        for (const event of events) this.startLane(event);
      } catch (error) {
        if (this.stopping) break;
        failures.failed(
          { worker: this.worker, error: describeError(error).message },
          'could not take ordered lanes; retrying',
        );
        await sleep(retryDelay(STORE_RETRY, failures.inARow));
      }
    }
  }

  private startLane(first: LaneEvent): void {
    this.active++;
    void this.runLane(first).finally(() => {
      this.active--;
      for (const wake of [...this.slotWaiters]) {
        this.slotWaiters.delete(wake);
        wake();
      }
      for (const ended of [...this.laneEnded]) {
        this.laneEnded.delete(ended);
        ended();
      }
      if (this.active === 0) for (const done of [...this.lanesDone]) done();
    });
  }

  private async runLane(first: LaneEvent): Promise<void> {
    let current: LaneEvent | undefined = first;
    for (let turn = 0; current !== undefined; turn++) {
      if (current.rebased !== undefined) this.warnRebased(current, current.rebased);
      // A busy key goes back to the end of the queue now and then, so keys
      // waiting for a slot get their turn; the lane resumes at this event.
      // While another lane's event runs alone, the others step aside the same way.
      if (this.stopping || turn >= EVENTS_PER_TURN || this.soloLane !== undefined) {
        await this.record({ op: 'release', lane: current.lane });
        return;
      }
      const reply: StepReply | undefined =
        current.deliveries > 1 ? await this.runAlone(current) : await this.runOne(current);
      if (reply === undefined) return;
      current = typeof reply === 'object' ? reply : undefined;
    }
  }

  /** Says that a lane stopped waiting for a position that never came (see `lane-rebase.ts`). */
  private warnRebased(event: LaneEvent, rebased: NonNullable<LaneEvent['rebased']>): void {
    const lane = parseLane(event.lane);
    this.options.logger.warn(
      { key: lane.key, from: rebased.from, to: event.position, why: rebased.why, seq: event.seq },
      rebased.why === 'no-state'
        ? `order key ${lane.key}: its lane had no state of its own (Redis lost its data?) and waited for position ${rebased.from}; it goes on from position ${event.position}, the first it holds (positions before it were handled before the loss, or are lost)`
        : `order key ${lane.key}: position ${rebased.from} never came; the lane goes on from position ${event.position}, the first it holds, and the events in between are skipped`,
    );
  }

  /**
   * Runs an event handed out again (its last worker died or stalled while
   * holding it, maybe because of another lane's event) with no other lane
   * held by this worker: the other lanes finish their current event, record
   * it and hand their lane back first, none is taken while it runs, and its
   * step is recorded at once. If this worker dies now, only this event counts
   * a delivery; an innocent one completes and its count starts again, so only
   * a process-killing event reaches `maxDeliveries`. The stream's drains take
   * over a dead drain's entries one at a time for the same reason. Resolves
   * to the step's reply, or `undefined` when the lane was handed back unrun
   * (shutdown).
   */
  private async runAlone(event: LaneEvent): Promise<StepReply | undefined> {
    this.soloLane = event.lane;
    try {
      while (this.active > 1 && !this.stopping) {
        await new Promise<void>((resolve) => this.laneEnded.add(resolve));
      }
      if (this.stopping) {
        await this.record({ op: 'release', lane: event.lane });
        return undefined;
      }
      // Alone in the process too: no drain or handler job of this worker runs meanwhile.
      return await this.options.solo.alone(() => this.runOne(event, { alone: true }));
    } finally {
      this.soloLane = undefined;
      for (const wake of [...this.slotWaiters]) {
        this.slotWaiters.delete(wake);
        wake();
      }
    }
  }

  /**
   * Runs one lane event and records its step. `alone`: the caller holds the
   * process's gate alone, and the step is sent without waiting for other
   * lanes' steps.
   */
  private async runOne(current: LaneEvent, { alone = false } = {}): Promise<StepReply> {
    let step: LaneStep;
    try {
      const run = () => this.options.runner.run(current);
      step = await (alone ? run() : this.options.solo.shared(run));
    } catch (error) {
      // Only the store can fail here (a dead letter not written): try the event again soon.
      this.options.logger.error(
        { lane: current.lane, error: describeError(error).message },
        'an ordered event could not be finished; it runs again shortly',
      );
      step = {
        op: 'later',
        lane: current.lane,
        position: current.position,
        delayMs: 1_000,
        attemptsMade: current.attemptsMade,
        failures: current.failures,
        from: current.from,
      };
    }
    const reply = await this.record(step, { now: alone });
    if (reply === 'lost') {
      this.options.logger.warn(
        { worker: this.worker, lane: current.lane, position: current.position },
        'this worker no longer holds an ordered key (its lease lapsed and another worker took over, or a reply was lost); the event may run twice',
      );
      // If the reply was lost but the lane is still this worker's, hand it back so it is not stuck.
      await this.record({ op: 'release', lane: current.lane });
    }
    return reply;
  }

  /**
   * Records a step, batched with the other lanes' steps of this tick (or sent
   * on its own at once with `now`); retried while the store is unreachable.
   */
  private async record(step: LaneStep, { now = false } = {}): Promise<StepReply> {
    // Made on the first failure only: a step's record is on the hot path.
    let failures: FailureLog | undefined;
    for (;;) {
      try {
        return await new Promise<StepReply>((resolve, reject) => {
          if (now) {
            this.send([{ step, resolve, reject }]);
            return;
          }
          this.batch.push({ step, resolve, reject });
          if (this.batch.length === 1) setImmediate(() => this.flush());
        });
      } catch (error) {
        failures ??= new FailureLog(this.options.logger);
        failures.failed(
          { lane: step.lane, op: step.op, error: describeError(error).message },
          'could not record an ordered event step; retrying',
        );
        await sleep(retryDelay(STORE_RETRY, failures.inARow));
      }
    }
  }

  private flush(): void {
    const all = this.batch;
    this.batch = [];
    for (let i = 0; i < all.length; i += STEPS_PER_CALL) this.send(all.slice(i, i + STEPS_PER_CALL));
  }

  private send(batch: readonly PendingStep[]): void {
    this.store
      .steps(
        this.worker,
        batch.map((b) => b.step),
      )
      .then(
        (replies) => {
          for (const [i, b] of batch.entries()) b.resolve(replies[i] ?? 'lost');
        },
        (error: unknown) => {
          for (const b of batch) b.reject(error);
        },
      );
  }

  /**
   * Stops taking lanes, lets each running lane finish its current event (up to
   * `timeoutMs`), and leaves: lanes still held go back for other workers.
   */
  async close(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.store.interrupt?.();
    for (const wake of [...this.slotWaiters]) wake();
    let timer: NodeJS.Timeout | undefined;
    const drained = new Promise<void>((resolve) => {
      if (this.active === 0) resolve();
      else this.lanesDone.add(resolve);
    });
    await Promise.race([
      Promise.all([drained, this.intakeLoop]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    await this.maintenance.stop();
    await this.store
      .leave(this.worker)
      .catch((error: unknown) =>
        this.options.logger.warn(
          { worker: this.worker, error: describeError(error).message },
          'could not hand back ordered lanes on shutdown; they go back when the lease lapses',
        ),
      );
  }
}
