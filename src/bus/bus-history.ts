import type { HistoryOptions } from '../config/option-groups.js';
import type { ObserverSet } from '../handlers/observer-set.js';
import { checkSinceMs, HISTORY_DEFAULT_SINCE_MS, historyPoints } from '../metrics/history-points.js';
import { type BacklogSample, HistoryRecorder } from '../metrics/history-recorder.js';
import type { HistoryPoint } from '../metrics/history-store.js';
import type { Logger } from '../support/logger.js';
import { backlogOf } from './idle.js';
import type { Transport } from './transport.js';

/** What `bus.history()` takes. */
export interface HistoryQuery {
  /**
   * How far back to read, in milliseconds (at most 24 hours are kept).
   * @defaultValue `86_400_000` (24 hours: 1,440 points)
   */
  readonly sinceMs?: number;
}

/** What a {@link BusHistory} is built from. */
export interface BusHistoryParts {
  /** The ports the history is kept in and the backlog read from. */
  readonly transport: Pick<Transport, 'history' | 'log' | 'ordering'>;
  /** `history.enabled`, `history.flushEveryMs`. */
  readonly settings: HistoryOptions;
  /** The bus's observers, to which the counting hooks are added. */
  readonly observers: ObserverSet;
  /** Where failed flushes are logged. */
  readonly logger: Logger;
  /** Whether a worker of the bus runs in this process now (only then is the backlog sampled). */
  readonly workerRuns: () => boolean;
}

/**
 * A bus's history per minute: reading it (`bus.history()`), and, with
 * `history.enabled`, this process's counting. A bus that publishes or runs
 * a worker flushes every `history.flushEveryMs` from then on (a process
 * that only reads, like `commitbus status`, stores nothing), and a bus
 * with a worker running here samples the backlog at each flush.
 */
export class BusHistory {
  private readonly recorder: HistoryRecorder | undefined;

  constructor(private readonly parts: BusHistoryParts) {
    if (!parts.settings.enabled) return;
    this.recorder = new HistoryRecorder({
      store: parts.transport.history,
      flushEveryMs: parts.settings.flushEveryMs,
      logger: parts.logger,
      sample: () => (parts.workerRuns() ? sampleBacklog(parts.transport) : undefined),
    });
    parts.observers.add(this.recorder.observer);
  }

  /** One point per minute, oldest first, zero-filled (see `EventBus.history`). */
  async read(query: HistoryQuery = {}): Promise<HistoryPoint[]> {
    const sinceMs = checkSinceMs(query.sinceMs ?? HISTORY_DEFAULT_SINCE_MS);
    return historyPoints(await this.parts.transport.history.read(sinceMs), sinceMs);
  }

  /** Counts events this process published. */
  published(count: number): void {
    this.recorder?.published(count);
  }

  /** A worker started here: flushes begin (with backlog samples). */
  workerStarted(): void {
    this.recorder?.start();
  }

  /** Stores what is counted still (once the workers are closed). */
  close(): Promise<void> {
    return this.recorder?.close() ?? Promise.resolve();
  }
}

async function sampleBacklog(transport: Pick<Transport, 'log' | 'ordering'>): Promise<BacklogSample> {
  const [backlog, oldest] = await Promise.all([backlogOf(transport), transport.log.oldestAt()]);
  return { backlog, backlogAgeMs: oldest === undefined ? 0 : Math.max(0, Date.now() - oldest.getTime()) };
}
