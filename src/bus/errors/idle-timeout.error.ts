import { CommitbusError } from '../../support/commitbus-error.js';

/** `bus.whenIdle(timeoutMs)` (or a test bus's `settle()`) ran out before every event and handler job was done. */
export class IdleTimeoutError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_IDLE_TIMEOUT';

  constructor(readonly timeoutMs: number) {
    super(
      `the bus was not idle after ${timeoutMs} ms: start a worker (bus.startWorker()) in some process, look for a paused handler or a halted order key (bus.rules, bus.ordering), or wait longer`,
    );
  }
}
