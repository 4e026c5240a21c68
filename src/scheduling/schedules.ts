import type { PublishingOptions } from '../config/option-groups.js';
import type { Event } from '../events/event.js';
import type { Logger } from '../support/logger.js';
import { DuplicateScheduleError } from './errors/duplicate-schedule.error.js';
import { ScheduleOptionsError } from './errors/schedule-options.error.js';
import type { ScheduledEventFactory, ScheduleHandle, ScheduleWhen } from './schedule.js';
import { ScheduleRunner } from './schedule-runner.js';
import type { ScheduleTickStore } from './schedule-tick-store.js';
import { scheduleTrigger } from './schedule-trigger.js';

/** The longest schedule name, in characters (the SQL transport's column holds it). */
export const MAX_SCHEDULE_NAME = 255;

/** What a bus's schedules need from it. */
export interface SchedulesDeps {
  /** Where ticks are claimed: the transport's. */
  readonly store: ScheduleTickStore;
  /**
   * Publishes a tick's event: the bus's publishing, not `bus.publish`, so a
   * tick under way when the bus closes still publishes before `close` resolves.
   */
  readonly publish: (events: readonly Event[]) => Promise<void>;
  /** A publish's retries: `attempts` in all, the first wait `backoffMs`, doubling. */
  readonly publishing: Pick<PublishingOptions, 'attempts' | 'backoffMs'>;
  /** Where failures are logged. */
  readonly logger: Logger;
}

/**
 * @internal The schedules of one bus in this process (`bus.schedule`): each
 * runs its loop ({@link ScheduleRunner}) while at least one worker of the
 * bus runs here ({@link Schedules.attach}), and stops when the last one
 * closes or the bus does.
 */
export class Schedules {
  private readonly runners = new Map<string, ScheduleRunner>();
  private attached = 0;
  private closed = false;

  constructor(private readonly deps: SchedulesDeps) {}

  /**
   * Adds a schedule, checked first: a {@link ScheduleOptionsError} or
   * {@link DuplicateScheduleError} leaves nothing scheduled. Its loop starts
   * at once if a worker runs, else with the first one.
   */
  add(name: string, when: ScheduleWhen, factory: ScheduledEventFactory): ScheduleHandle {
    if (typeof name !== 'string' || name === '' || name.length > MAX_SCHEDULE_NAME) {
      throw new ScheduleOptionsError(
        String(name),
        `a schedule's name must be a string of 1 to ${MAX_SCHEDULE_NAME} characters`,
      );
    }
    const trigger = scheduleTrigger(name, when);
    if (typeof factory !== 'function') {
      throw new ScheduleOptionsError(
        name,
        'give a function making the event of each tick: () => MyEvent.create({ ... })',
      );
    }
    if (this.runners.has(name)) throw new DuplicateScheduleError(name);
    const { store, publish, logger, publishing } = this.deps;
    const retry = {
      type: 'exponential',
      delayMs: publishing.backoffMs,
      attempts: publishing.attempts,
    } as const;
    const runner = new ScheduleRunner({ store, publish, logger, retry, name, trigger, factory });
    this.runners.set(name, runner);
    if (this.attached > 0 && !this.closed) runner.start();
    return {
      name,
      stop: async () => {
        if (this.runners.get(name) === runner) await this.remove(name);
      },
    };
  }

  /** Removes a schedule; resolves to false if there was none, else once a tick under way is done. */
  async remove(name: string): Promise<boolean> {
    const runner = this.runners.get(name);
    if (runner === undefined) return false;
    this.runners.delete(name);
    await runner.stop();
    return true;
  }

  /** The names scheduled in this process, in the order they were added. */
  names(): string[] {
    return [...this.runners.keys()];
  }

  /**
   * A worker started: the schedules run while any attached worker does.
   * Returns its detach, which stops them (resolving once the ticks under way
   * are done) when it was the last.
   */
  attach(): () => Promise<void> {
    this.attached++;
    if (this.attached === 1 && !this.closed) for (const runner of this.runners.values()) runner.start();
    let detached = false;
    return async () => {
      if (detached) return;
      detached = true;
      this.attached--;
      if (this.attached === 0) await this.stopAll();
    };
  }

  /** Stops every schedule for good (the bus closes); resolves once the ticks under way are done. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stopAll();
  }

  private async stopAll(): Promise<void> {
    await Promise.all([...this.runners.values()].map((runner) => runner.stop()));
  }
}
