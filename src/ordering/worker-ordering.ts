import type { OrderingStore } from './ordering-store.js';

/** A worker's handle on the ordered lanes, with connections of its own. */
export interface WorkerOrdering {
  /** The store. */
  readonly store: OrderingStore;
  /** Releases what the handle holds. */
  close(): void;
}

/**
 * Opens a worker's handle on the lanes; an adapter provides it beside its
 * shared {@link OrderingStore}. A bus opens one only for a worker that runs
 * ordered lanes.
 */
export interface WorkerOrderingSource {
  /** A new handle for one worker (on Redis: two connections of its own). */
  workerOrdering(): WorkerOrdering;
}
