/**
 * A pause that can be cut short: `sleep(ms)` resolves after `ms`, or at once
 * when `wake()` is called meanwhile (a wake with nobody asleep makes the next
 * sleep return at once, so a wake between two checks is not lost).
 */
export class WakeTimer {
  private pending: (() => void) | undefined;
  private woken = false;

  /** Waits `ms`, or less if woken. */
  sleep(ms: number): Promise<void> {
    if (this.woken || ms <= 0) {
      this.woken = false;
      // Still a turn of the event loop: SQLite's queries are synchronous, and a loop of them must not starve timers and I/O.
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        if (self.pending === done) self.pending = undefined;
        resolve();
      }
      this.pending = done;
    });
  }

  /** Ends the current sleep, or the next one. */
  wake(): void {
    const pending = this.pending;
    if (pending === undefined) this.woken = true;
    else pending();
  }
}
