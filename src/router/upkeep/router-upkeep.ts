import { type Logger, silentLogger } from '../../support/logger.js';
import { PeriodicTask } from '../../support/periodic-task.js';
import type { BatchStore } from '../batch-store.js';
import type { RouterMetrics } from '../router-metrics.js';
import type { UpkeepSettings } from './upkeep-settings.js';

/** What one autodrop run did. */
export interface AutodropResult {
  /** Batches dropped. */
  readonly batches: number;
  /** Events dropped, per subscriber. */
  readonly eventsBySubscriber: Readonly<Record<string, number>>;
  /** Bytes used before and after. */
  readonly bytesBefore: number;
  /** Bytes used once done. */
  readonly bytesAfter: number;
}

/** What {@link RouterUpkeep} works with. */
export interface RouterUpkeepDeps {
  /** The queue of batches. */
  readonly batches: BatchStore;
  /** Settings, defaults filled in (see `upkeepSettings`). */
  readonly settings: UpkeepSettings;
  /** Counts dropped events, when metrics are served. */
  readonly metrics?: RouterMetrics;
  /** Where drops and failures are logged. @defaultValue silent */
  readonly logger?: Logger;
  /** The clock. @defaultValue `Date.now` */
  readonly now?: () => number;
}

/**
 * The router's scheduled work (seed 004's deadline, scrub and autodrop
 * loops): makes due early batches ready, puts back batches whose worker died
 * (their lease ended), and drops the oldest batches, counted and logged,
 * while the store uses more memory than the high mark. Runs in any number of
 * processes: each step is one atomic store call.
 */
export class RouterUpkeep {
  private readonly tasks: PeriodicTask[];
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly deps: RouterUpkeepDeps) {
    this.logger = deps.logger ?? silentLogger;
    this.now = deps.now ?? Date.now;
    const { settings } = deps;
    this.tasks = [
      new PeriodicTask('router promote', settings.promoteEveryMs, () => this.promote(), this.logger),
      new PeriodicTask('router lease recovery', settings.recoverEveryMs, () => this.recover(), this.logger),
    ];
    if (settings.autodropHighBytes > 0) {
      this.tasks.push(
        new PeriodicTask('router autodrop', settings.autodropEveryMs, () => this.autodrop(), this.logger),
      );
    }
  }

  /** Starts every loop. */
  start(): this {
    for (const task of this.tasks) task.start();
    return this;
  }

  /** Stops the loops and waits for runs under way. */
  async close(): Promise<void> {
    await Promise.all(this.tasks.map((task) => task.stop()));
  }

  /** Makes due early batches ready; returns how many. */
  promote(): Promise<number> {
    return this.deps.batches.promoteDue(this.now());
  }

  /** Puts back batches whose lease ended, due now; returns how many. */
  async recover(): Promise<number> {
    const now = this.now();
    const recovered = await this.deps.batches.recoverExpired(now, now);
    if (recovered > 0) {
      this.logger.warn(
        { batches: recovered },
        `${recovered} batch(es) whose worker stopped answering were put back`,
      );
    }
    return recovered;
  }

  /**
   * While the store uses more than the high mark, drops the oldest batches
   * not being delivered until it uses at most the low mark (or nothing is
   * left to drop). Every drop is counted and logged.
   */
  async autodrop(): Promise<AutodropResult> {
    const { batches, settings, metrics } = this.deps;
    const bytesBefore = await batches.memoryUsed();
    let bytes = bytesBefore;
    let dropped = 0;
    const events: Record<string, number> = {};
    if (bytes > settings.autodropHighBytes) {
      while (bytes > settings.autodropLowBytes && dropped < settings.autodropMaxBatchesPerRun) {
        const step = await batches.dropOldest(
          Math.min(settings.autodropBatchSize, settings.autodropMaxBatchesPerRun - dropped),
        );
        if (step.batches === 0) break;
        dropped += step.batches;
        for (const [subscriber, count] of Object.entries(step.eventsBySubscriber)) {
          events[subscriber] = (events[subscriber] ?? 0) + count;
          metrics?.dropped.inc({ subscriber }, count);
        }
        bytes = await batches.memoryUsed();
      }
    }
    if (dropped > 0 || bytesBefore > settings.autodropHighBytes) {
      this.logger.error(
        {
          batches: dropped,
          eventsBySubscriber: events,
          bytesBefore,
          bytesAfter: bytes,
          highMark: settings.autodropHighBytes,
          lowMark: settings.autodropLowBytes,
        },
        `memory over the high mark: dropped the ${dropped} oldest batch(es), those events are lost` +
          (bytes > settings.autodropLowBytes
            ? "; still over the low mark (the store counts all of Redis: is the memory the router's?), the next check drops more"
            : ''),
      );
    }
    return { batches: dropped, eventsBySubscriber: events, bytesBefore, bytesAfter: bytes };
  }
}
