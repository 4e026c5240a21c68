import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { ObserverSet } from './observer-set.js';

/** Where a handler path keeps what it gave up. */
export type DeadLetterSink = Pick<DeadLetterStore, 'add'>;

/**
 * `store`, telling `observer` of each letter once it is stored (`onDeadLetter`).
 * Every handler path keeps its letters through one of these.
 */
export function observedDeadLetters(store: DeadLetterSink, observer: ObserverSet): DeadLetterSink {
  return {
    add: async (letters) => {
      await store.add(letters);
      for (const letter of letters) observer.notify('onDeadLetter', letter);
    },
  };
}
