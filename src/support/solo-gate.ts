/**
 * One per worker process: lets a piece of work run with nothing else of the
 * process's in flight. Ordinary work runs {@link SoloGate.shared} (any number
 * at once); work that must be alone runs {@link SoloGate.alone}: it waits for
 * the shared work under way to finish, no shared work starts while it waits
 * or runs, and solo works run one at a time.
 *
 * Used for an event handed out again after its worker died: if it kills the
 * process too, nothing else was in flight to count a delivery it did not
 * cause, so only a process-killing event reaches `maxDeliveries`.
 *
 * Fairness: when a solo work ends, the shared works that waited for it start
 * before the next solo one, so a run of redeliveries cannot starve the rest.
 * Not re-entrant: work inside `alone` must not call `shared` or `alone`.
 */
export class SoloGate {
  /** Shared works running. */
  private running = 0;
  /** Whether a solo work holds the gate. */
  private soloRunning = false;
  private readonly soloWaiting: (() => void)[] = [];
  private readonly sharedWaiting: (() => void)[] = [];

  /** Runs `work` beside other shared work, once no solo work holds or waits for the gate. */
  async shared<T>(work: () => Promise<T>): Promise<T> {
    if (this.soloRunning || this.soloWaiting.length > 0) {
      await new Promise<void>((resolve) => this.sharedWaiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      this.running--;
      if (this.running === 0) this.startSolo();
    }
  }

  /** Runs `work` with no other work of this gate in flight. */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    if (this.soloRunning || this.running > 0 || this.soloWaiting.length > 0) {
      await new Promise<void>((resolve) => this.soloWaiting.push(resolve));
    } else {
      this.soloRunning = true;
    }
    try {
      return await work();
    } finally {
      this.soloRunning = false;
      if (this.sharedWaiting.length > 0) this.startShared();
      else this.startSolo();
    }
  }

  /** Solo works waiting for the gate (for status and tests). */
  get soloQueued(): number {
    return this.soloWaiting.length;
  }

  /** Hands the gate to the next solo work, when nothing holds it. */
  private startSolo(): void {
    if (this.soloRunning || this.running > 0) return;
    const next = this.soloWaiting.shift();
    if (next === undefined) return;
    this.soloRunning = true;
    next();
  }

  /** Starts every shared work that waited. */
  private startShared(): void {
    for (const start of this.sharedWaiting.splice(0)) {
      this.running++;
      start();
    }
  }
}
