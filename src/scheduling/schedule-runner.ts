import type { Event } from '../events/event.js';
import { isCommitbusError } from '../support/commitbus-error.js';
import { TransportUnavailableError } from '../support/errors/transport-unavailable.error.js';
import { FailureLog } from '../support/failure-log.js';
import { describeError, type Logger } from '../support/logger.js';
import { mayRetry, type RetryPolicy, retryDelay } from '../support/retry-policy.js';
import { MAX_TIMER_MS } from '../support/timer-limit.js';
import type { ScheduledEventFactory } from './schedule.js';
import type { ScheduleTickStore } from './schedule-tick-store.js';
import type { ScheduleTrigger } from './schedule-trigger.js';

/** What one schedule's loop needs. */
export interface ScheduleRunnerDeps {
  /** The schedule's name. */
  readonly name: string;
  /** When it ticks. */
  readonly trigger: ScheduleTrigger;
  /** Makes the event of a tick. */
  readonly factory: ScheduledEventFactory;
  /** Where the ticks are claimed. */
  readonly store: ScheduleTickStore;
  /** Publishes a tick's event (the bus's publishing, which a closing bus still lets through). */
  readonly publish: (events: readonly Event[]) => Promise<void>;
  /** The publish's retries (the bus's `publishing.attempts` and `backoffMs`). */
  readonly retry: RetryPolicy;
  /** Where failures are logged. */
  readonly logger: Logger;
}

/** One start of the loop; stopping it ends that loop only, so a start right after a stop never runs two. */
interface Run {
  active: boolean;
  wake?: () => void;
}

/** The waits before a schedule whose store failed tries again: from 100 ms, doubling, at most 5 s. */
const STORE_RETRY: RetryPolicy = { type: 'exponential', delayMs: 100, maxDelayMs: 5_000, jitter: 0.5 };

/**
 * The loop of one schedule in one process: it sleeps until the next tick,
 * claims it in the {@link ScheduleTickStore} and, when this process won it,
 * publishes the factory's event. It catches up only the latest tick it
 * missed (every tick between is skipped); a schedule never claimed before
 * starts from its next tick (its latest past tick is stored, unpublished, as
 * where it starts).
 */
export class ScheduleRunner {
  private current: Run | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly failures: FailureLog;

  constructor(private readonly deps: ScheduleRunnerDeps) {
    this.failures = new FailureLog(deps.logger);
  }

  /** Starts the loop, after a previous one has ended; a running loop is left as it is. */
  start(): void {
    if (this.current?.active === true) return;
    const run: Run = { active: true };
    this.current = run;
    this.running = this.running
      .then(() => this.loop(run))
      .catch((error: unknown) =>
        this.deps.logger.error(
          { schedule: this.deps.name, error: describeError(error) },
          'a schedule stopped',
        ),
      );
  }

  /** Stops the loop and resolves once a tick under way is done (or given up). */
  stop(): Promise<void> {
    const run = this.current;
    if (run !== undefined) {
      run.active = false;
      run.wake?.();
    }
    return this.running;
  }

  private async loop(run: Run): Promise<void> {
    const { name, trigger, store } = this.deps;
    let last: number | undefined;
    while (run.active) {
      let wait: number;
      try {
        last ??= await this.startingPoint(Date.now());
        const due = trigger.latest(Date.now());
        if (due !== undefined && due > last && run.active) {
          const won = await store.claim(name, new Date(due));
          last = due;
          if (won) await this.fire(due, run);
        }
        this.failures.succeeded({ fields: { schedule: name }, message: `schedule ${name} recovered` });
        const now = Date.now();
        wait = trigger.next(now) - now;
      } catch (error) {
        this.failures.failed(
          { schedule: name, error: describeError(error).message },
          `schedule ${name} could not run its tick; it tries again`,
        );
        wait = retryDelay(STORE_RETRY, this.failures.inARow);
      }
      await this.pause(wait, run);
    }
  }

  /** The last tick stored, or, for a schedule never claimed, its latest past tick, stored as where it starts. */
  private async startingPoint(now: number): Promise<number> {
    const { name, trigger, store } = this.deps;
    const stored = await store.lastTick(name);
    if (stored !== undefined) return stored.getTime();
    const latest = trigger.latest(now);
    if (latest === undefined) return Number.NEGATIVE_INFINITY;
    await store.claim(name, new Date(latest));
    return latest;
  }

  /** Publishes the event of the tick at `due`, which this process won, with the bus's publish retries. */
  private async fire(due: number, run: Run): Promise<void> {
    const { name, factory, logger, retry } = this.deps;
    const at = new Date(due);
    const fields = { schedule: name, tick: at.toISOString() };
    let event: Event;
    try {
      event = await factory({ name, at });
    } catch (error) {
      logger.error(
        { ...fields, error: describeError(error) },
        "the schedule's event factory threw; this tick publishes nothing",
      );
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.publish([event]);
        return;
      } catch (error) {
        const transient = !isCommitbusError(error) || error instanceof TransportUnavailableError;
        if (!transient || !mayRetry(retry, attempt) || !run.active) {
          logger.error(
            { ...fields, attempts: attempt, error: describeError(error) },
            'a scheduled tick was not published',
          );
          return;
        }
        await this.pause(retryDelay(retry, attempt), run);
      }
    }
  }

  /** Waits `ms` (capped at Node's timer limit: the loop then waits again), or until the run stops. */
  private pause(ms: number, run: Run): Promise<void> {
    if (!run.active) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        run.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(ms, MAX_TIMER_MS)));
      timer.unref();
      run.wake = done;
    });
  }
}
