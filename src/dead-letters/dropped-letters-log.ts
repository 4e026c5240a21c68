import type { Logger } from '../support/logger.js';
import type { DeadLetterRetention } from './dead-letter-store.js';

/** How often, at most, {@link DroppedLettersLog} logs a line: once a minute. */
export const DROPPED_LOG_EVERY_MS = 60_000;

/**
 * The log of dead letters a store dropped to keep its retention: the first
 * drop is logged at once, later ones at most once in `everyMs`, each line
 * with how many were dropped since the last one (the exact total is
 * `counts().dropped`).
 */
export class DroppedLettersLog {
  private unlogged = 0;
  private lastAt: number | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly retention: DeadLetterRetention,
    private readonly everyMs: number = DROPPED_LOG_EVERY_MS,
  ) {}

  /** Counts `count` letters dropped, and logs them if a minute went by since the last line. */
  dropped(count: number, now: number = Date.now()): void {
    if (count <= 0) return;
    this.unlogged += count;
    if (this.lastAt !== undefined && now - this.lastAt < this.everyMs) return;
    this.logger.warn(
      { dropped: this.unlogged, maxCount: this.retention.maxCount, maxAgeMs: this.retention.maxAgeMs },
      'dead letters dropped to keep deadLetters.maxCount and deadLetters.maxAgeMs (oldest first); raise them or re-drive or purge letters sooner',
    );
    this.unlogged = 0;
    this.lastAt = now;
  }
}

/** What a transport passes its dead-letter store: the bus's `deadLetters` limits, and a {@link DroppedLettersLog} of them. */
export function deadLetterRetention(
  options: DeadLetterRetention,
  logger: Logger,
): { retention: DeadLetterRetention; onDropped: (count: number) => void } {
  const retention = { maxCount: options.maxCount, maxAgeMs: options.maxAgeMs };
  const log = new DroppedLettersLog(logger, retention);
  return { retention, onDropped: (count) => log.dropped(count) };
}
