import { FailureLog } from './failure-log.js';
import type { Logger } from './logger.js';
import { describeError } from './logger.js';

/**
 * Runs an async function every `everyMs`, never two runs at once. A run that
 * throws is logged (throttled while failures go on) and the schedule goes on. The timer does not keep the
 * process alive.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly failures: FailureLog;

  /**
   * @param name - named in logs.
   * @param everyMs - pause between the end of one run and the start of the next.
   * @param run - the work; resolves when done.
   * @param logger - where failures go.
   */
  constructor(
    private readonly name: string,
    private readonly everyMs: number,
    private readonly run: () => Promise<unknown>,
    logger: Logger,
  ) {
    this.failures = new FailureLog(logger);
  }

  /** Runs once now (or, with `now: false`, after `everyMs`), then on schedule. */
  start({ now = true }: { now?: boolean } = {}): this {
    if (now) this.tick();
    else this.scheduleNext();
    return this;
  }

  /** Runs once now unless a run is under way (for work that should not wait for the next tick). */
  trigger(): void {
    if (this.running === undefined && !this.stopped) {
      clearTimeout(this.timer);
      this.tick();
    }
  }

  /** Stops the schedule and waits for a run under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private tick(): void {
    this.running = this.run()
      .then(
        () => this.failures.succeeded({ fields: { task: this.name }, message: `${this.name} recovered` }),
        // An outage fails every run: the first failure is logged, then one in 30.
        (error: unknown) =>
          this.failures.failed(
            { task: this.name, error: describeError(error).message },
            `${this.name} failed; it is retried on schedule`,
          ),
      )
      .finally(() => {
        this.running = undefined;
        this.scheduleNext();
      });
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.tick(), this.everyMs);
    this.timer.unref();
  }
}
