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
