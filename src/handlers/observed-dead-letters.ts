import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { ObserverSet } from './observer-set.js';

/** Where a handler path keeps what it gave up (a `DeadLetterStore`'s `add`; what it resolves to is not read). */
export interface DeadLetterSink {
  /** Stores the letters. */
  add(letters: readonly DeadLetter[]): Promise<unknown>;
}

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
