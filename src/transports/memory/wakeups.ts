/** In-process stand-in for a blocking read: waits that end after a timeout or when woken. */
export class Wakeups {
  private readonly waiting = new Set<() => void>();

  /** Resolves after `ms`, or sooner when {@link Wakeups.wakeAll} is called. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting.add(wake);
    });
  }

  /** Ends every wait now. */
  wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }
}
