import type { BusObserver } from '../handlers/bus-observer.js';

/** What {@link createBusMetrics} reads a bus through (an `EventBus` is one). */
export interface MetricsSource {
  /** Adds an observer of the bus's publishing and handler runs; returns its removal. */
  observe(observer: BusObserver): () => void;
  /** The bus's event classes: a handling key none of them has is not used as a label. */
  readonly registry: { has(handlingKey: string): boolean };
}
