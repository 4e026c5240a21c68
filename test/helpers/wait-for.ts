/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. @defaultValue 10_000 */
  timeoutMs?: number;
  /** Pause between polls. @defaultValue 20 */
  intervalMs?: number;
  /** Describes the state seen last; goes into the timeout error. */
  describe?: () => unknown;
}

/**
 * Polls `condition` until it returns true. Throws a clear error naming `what`
 * (and the last state, if `describe` is given) when it does not in time.
 */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 20, describe }: WaitForOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const state = describe === undefined ? '' : `; last state: ${JSON.stringify(await describe())}`;
      const cause = lastError === undefined ? '' : `; condition threw: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}${state}${cause}`, {
        cause: lastError,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Options of {@link waitForProgress}. */
export interface WaitForProgressOptions {
  /** Give up once `remaining` has not gone down for this long: the work is stuck, not slow. */
  stallMs: number;
  /** Give up after this long whatever happens. */
  timeoutMs: number;
  /** Pause between polls. @defaultValue 100 */
  intervalMs?: number;
  /** Describes the state seen last; goes into the error. */
  describe?: () => unknown;
}

/**
 * Polls `remaining` until it is 0 (or `done` says so). A machine shared with
 * other test runs may be slow, so this waits as long as the work gets on, and
 * throws a clear error naming `what` only once it has not moved for
 * `stallMs` (or after `timeoutMs` in all).
 */
export async function waitForProgress(
  what: string,
  remaining: () => Promise<number>,
  { stallMs, timeoutMs, intervalMs = 100, describe }: WaitForProgressOptions,
): Promise<void> {
  const startedAt = Date.now();
  let least = Number.POSITIVE_INFINITY;
  let movedAt = startedAt;
  for (;;) {
    const left = await remaining();
    if (left <= 0) return;
    const now = Date.now();
    if (left < least) {
      least = left;
      movedAt = now;
    }
    const stalled = now - movedAt >= stallMs;
    if (stalled || now - startedAt >= timeoutMs) {
      const why = stalled ? `nothing moved for ${stallMs}ms` : `timed out after ${timeoutMs}ms`;
      const state = describe === undefined ? '' : `; last state: ${JSON.stringify(await describe())}`;
      throw new Error(`${why} waiting for ${what} (${left} left)${state}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
