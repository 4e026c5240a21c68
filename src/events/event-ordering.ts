/**
 * Where an ordered event stands in its order key's sequence. Workers set it
 * on the event before any handler runs, so handlers, and anything they pass
 * the event on to, can check that `prev` is the `seq` they saw last for the
 * key: a gap or a reordering shows at once.
 */
export interface EventOrdering {
  /** The order key, e.g. `record:42`. */
  readonly key: string;
  /** Increasing per bus; assigned when the event's turn comes, kept across redeliveries. */
  readonly seq: number;
  /** The `seq` of the key's previous event; absent for the key's first. */
  readonly prev?: number;
}
