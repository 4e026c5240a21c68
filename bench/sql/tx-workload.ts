import type { TxSide } from './tx-side.js';

/** What one run of a side gave. */
export interface TxRun {
  /** Units of work handled per second: all of them over the time from the first start to the last handler. */
  readonly perS: number;
  /** Units of work committed per second: all of them over the time until the last producer's resolved. */
  readonly committedPerS: number;
  /** Commit-to-handler times, ms. */
  readonly latenciesMs: number[];
  /** Handler runs beyond the first per unit. */
  readonly duplicates: number;
}

let nextUnit = 1;

/**
 * Closed loop: `producers` loops run `units` units of work between them, one
 * at a time each, and the run ends when the handler ran for every one.
 */
export async function runTxUnits(
  side: TxSide,
  units: number,
  producers: number,
  timeoutMs: number,
): Promise<TxRun> {
  side.tally.reset();
  const first = nextUnit;
  nextUnit += units;
  let next = 0;
  const lane = async () => {
    while (next < units) {
      const unit = first + next++;
      await side.unit(unit);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(producers, units) }, lane));
  const committedMs = performance.now() - started;
  await side.tally.waitFor(units, timeoutMs);
  const elapsedMs = performance.now() - started;
  return {
    perS: units / (elapsedMs / 1000),
    committedPerS: units / (committedMs / 1000),
    latenciesMs: side.tally.latenciesMs(),
    duplicates: side.tally.duplicates,
  };
}
