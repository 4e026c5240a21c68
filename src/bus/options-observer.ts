import type { BusObserver } from '../handlers/bus-observer.js';
import type { EventBusOptions } from './event-bus-options.js';

/** The hooks among a bus's options (`onPublished`, `onHandled`, ...), as one observer. */
export function observerOf(options: EventBusOptions): BusObserver {
  const { onPublished, onHandled, onHandlerFailed, onRetry, onParked, onDeadLetter } = options;
  return { onPublished, onHandled, onHandlerFailed, onRetry, onParked, onDeadLetter };
}
