/** Wall-clock milliseconds with sub-millisecond precision; events carry it as their send time. */
export const nowMs = (): number => performance.timeOrigin + performance.now();

/** Counts handled events and, while recording, their publish-to-handler latency. */
export class HandledTally {
  count = 0;
  latenciesMs: number[] = [];
  private recording = false;
  private waiter: { target: number; resolve: () => void } | undefined;

  /** Called by a handler with the event's send time. */
  record(sentAt: number): void {
    if (this.recording) this.latenciesMs.push(nowMs() - sentAt);
    this.count++;
    if (this.waiter !== undefined && this.count >= this.waiter.target) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      resolve();
    }
  }

  /** Starts a new measurement. */
  reset(recordLatency: boolean): void {
    this.count = 0;
    this.latenciesMs = [];
    this.recording = recordLatency;
  }

  /** Resolves once `target` events were handled since the last reset. */
  waitFor(target: number, timeoutMs: number): Promise<void> {
    if (this.count >= target) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`only ${this.count} of ${target} events were handled within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }
}

/** One side of the comparison: something that takes events and runs a handler for each. */
export interface BenchTarget {
  /** Name in the report. */
  readonly label: string;
  /** Counts what the handler saw. */
  readonly tally: HandledTally;
  /** Events one send carries in the throughput run. */
  readonly unitSize: number;
  /** Sends `count` events stamped with the current time; resolves once they are accepted. */
  send(count: number): Promise<void>;
  /** What the side did since the last call, for the report (e.g. drain jobs). */
  describeRun?(): string;
  /** Stops workers and releases connections. */
  close(): Promise<void>;
}

const SETTLE_TIMEOUT_MS = 60_000;

/**
 * Closed loop: sends `events` in units of `target.unitSize`, at most `inFlight`
 * sends at a time, and returns events per second until the last was handled.
 */
export async function measureThroughput(
  target: BenchTarget,
  events: number,
  inFlight: number,
): Promise<number> {
  target.tally.reset(false);
  const units = Math.ceil(events / target.unitSize);
  let next = 0;
  const lane = async () => {
    while (next < units) {
      const unit = next++;
      await target.send(Math.min(target.unitSize, events - unit * target.unitSize));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(inFlight, units) }, lane));
  await target.tally.waitFor(events, SETTLE_TIMEOUT_MS);
  return events / ((performance.now() - started) / 1000);
}

/**
 * Open loop: sends one event every `1000 / ratePerS` ms for `durationMs`
 * whatever the system does (late timer ticks send the overdue events at once),
 * and returns each event's publish-to-handler latency in ms.
 */
export async function measureLatency(
  target: BenchTarget,
  ratePerS: number,
  durationMs: number,
): Promise<number[]> {
  target.tally.reset(true);
  const intervalMs = 1000 / ratePerS;
  const total = Math.round(durationMs / intervalMs);
  let sent = 0;
  await new Promise<void>((resolve, reject) => {
    const started = performance.now();
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
      for (; sent < due; sent++) target.send(1).catch(reject);
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
    };
    tick();
  });
  await target.tally.waitFor(total, SETTLE_TIMEOUT_MS);
  return target.tally.latenciesMs;
}
