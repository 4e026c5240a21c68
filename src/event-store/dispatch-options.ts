/** How to dispatch one event. */
export interface DispatchOptions {
  /** Resolve once queued (with the queued event) instead of once handled. @defaultValue true */
  readonly wait?: boolean;
  /** Keep its history row when pruning. @defaultValue false */
  readonly important?: boolean;
  /** When it happened, epoch ms. @defaultValue now */
  readonly ts?: number;
  /** Waiting, give up after this many ms with `EventStoreTimeoutError` (the event stays queued). @defaultValue no limit */
  readonly timeoutMs?: number;
}
