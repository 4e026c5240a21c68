import { describeError, type Logger } from '../../support/logger.js';

/**
 * Logs failed requests without flooding: the first failure of a kind (its
 * message and route) at once, then at most one line per `everyMs` for it,
 * saying how many were left out since. An outage that fails every request
 * writes a few lines, not one per request.
 */
export class FailureLog {
  private readonly seen = new Map<string, { at: number; skipped: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly everyMs = 10_000,
  ) {}

  /** Logs `error` for `route`, or counts it when a line of its kind went out less than `everyMs` ago. */
  report(route: string, method: string, error: unknown, message: string): void {
    const described = describeError(error);
    const kind = `${message}\u0000${route}\u0000${described.message}`;
    const now = this.now();
    const last = this.seen.get(kind);
    if (last !== undefined && now - last.at < this.everyMs) {
      last.skipped++;
      return;
    }
    if (this.seen.size > 1_000) this.seen.clear();
    this.seen.set(kind, { at: now, skipped: 0 });
    this.logger.error(
      {
        method,
        route,
        error: described,
        ...(last !== undefined ? { alikeSinceLastLine: last.skipped } : {}),
      },
      message,
    );
  }
}
