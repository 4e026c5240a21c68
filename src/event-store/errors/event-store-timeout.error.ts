import { CommitbusError } from '../../support/commitbus-error.js';

/** A wait for a version (`dispatch`, `handledVersion`, `waitForQueue` with `timeoutMs`) ran out; the event stays queued. */
export class EventStoreTimeoutError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_EVENT_STORE_TIMEOUT';

  constructor(
    readonly v: number,
    timeoutMs: number,
    handled: number,
  ) {
    super(
      `v${v} was not handled within ${timeoutMs} ms (the store was at v${handled} when last seen here). It stays queued and is handled when the writer gets to it: is a writer running (store.start() in some process), or is it halted (store.halted())?`,
    );
  }
}
