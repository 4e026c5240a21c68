/**
 * What happens to an order key when one of its events' handlers has failed
 * its last attempt. `halt`: the key stops at that event until an operator
 * re-drives or skips it (`bus.ordering`); `skip`: the handler's run is kept as
 * a dead letter and the key goes on.
 */
export type AfterLastAttempt = 'halt' | 'skip';

/** How an event class is ordered; given to `@EventType(key, { orderBy })`. */
export interface OrderingPolicy<E = never> {
  /**
   * The event's order key, e.g. `(e) => \`record:${e.recid}\``. Events with
   * the same key are handled one at a time, in the order their units of work
   * committed.
   */
  readonly orderBy: (event: E) => string;
  /**
   * What a key does once a handler gave up on one of its events.
   * @defaultValue `'halt'`: ordering matters more than progress
   */
  readonly afterLastAttempt?: AfterLastAttempt;
}
