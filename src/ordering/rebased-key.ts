/** A key whose lane was re-based (see `bus.ordering.rebase` and `bus.ordering.rebased`). */
export interface RebasedKey {
  /** The order key. */
  readonly key: string;
  /** The position its lane waited for. */
  readonly from: number;
  /** The position it went on from. */
  readonly to: number;
  /**
   * `no-state`: the lane had no state of its own (Redis lost its data) while
   * events waited at later positions; `gap`: a position never came within the
   * gap wait; `operator`: `bus.ordering.rebase(key)`.
   */
  readonly why: 'no-state' | 'gap' | 'operator';
  /** When. */
  readonly rebasedAt: Date;
}

/** The re-bases of a bus's keys: how many ever, and the newest keys' last ones. */
export interface RebasedKeys {
  /** Re-bases since the bus's count began (it only grows). */
  readonly count: number;
  /** The newest, newest first. */
  readonly recent: readonly RebasedKey[];
}
