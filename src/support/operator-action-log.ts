/** Where an operator action came from. */
export type OperatorSource = 'cli' | 'dashboard' | 'api';

/**
 * Who asks for an operator action, given as the last argument of each
 * (`bus.deadLetters.redrive(target, { source: 'cli', actor })`): by default
 * source `api` and the process's `user@host`.
 */
export interface OperatorOrigin {
  /** Who: a user name, `user@host`, `anonymous@<address>`. */
  readonly actor?: string;
  /** From where. @defaultValue `'api'` */
  readonly source?: OperatorSource;
  /**
   * What the operator asked for in their own terms, recorded as the action's
   * target instead of what the call was given: a CLI that re-drives a filter
   * page by page passes the filter (`{"handler":"mail"}`), so the trail
   * names it rather than each page's ids.
   * @defaultValue the call's own target
   */
  readonly asked?: string;
}

/** An operator action as it is kept in the trail. */
export interface OperatorAction {
  /** Its id in the trail: newer actions sort after older ones in the store's order. */
  readonly id: string;
  /** When it was stored, on the store's clock. */
  readonly at: Date;
  /** Who asked for it. */
  readonly actor: string;
  /** From where. */
  readonly source: OperatorSource;
  /** What, as `<area>.<verb>`: `dead-letters.redrive`, `rules.pause`, `ordering.skip`, `event-store.correct`. */
  readonly action: string;
  /** What it acted on: a dead-letter id or filter, `handler:<name>`, an order key, `v12`. */
  readonly target: string;
  /** How many things it changed (letters, lanes, rules), or `null` where that has no count. */
  readonly count: number | null;
}

/** An action to append: the store adds its `id` and `at`. */
export type NewOperatorAction = Omit<OperatorAction, 'id' | 'at'>;

/** Which page of the trail `bus.audit.list()` reads. */
export interface OperatorActionQuery {
  /** The most actions returned. @defaultValue `100` */
  readonly limit?: number;
  /** Only actions older than the one of this id (the last id of the previous page). */
  readonly before?: string;
}

/** The limit `bus.audit.list()` (and an `OperatorActionLog`) uses when given none. */
export const OPERATOR_ACTIONS_LIMIT = 100;

/**
 * The port that keeps a bus's audit trail of operator actions (re-drives,
 * purges, rules, ordering and event-store actions), shared by every process
 * of the bus: a stream under the bus's hash tag on Redis, rows of
 * `commitbus_operator_actions` on SQL. Each bus has its own.
 *
 * What every adapter keeps (test/conformance/operator-action-log.conformance.test.ts):
 *
 * - **Append stamps.** {@link append} stores every field as given (an
 *   `actor` of up to 255 characters, control characters too: `bus.audit` cuts a
 *   longer one), with a new `id` and `at` the store's clock, and resolves to the action stored.
 * - **Newest first, paged by id.** {@link list} returns up to `limit`
 *   actions (default {@link OPERATOR_ACTIONS_LIMIT}), newest first; with
 *   `before`, only those appended before that id. Appends from one process
 *   list in the order they were made.
 * - **Bounded.** The store keeps the newest `audit.maxEntries` actions (the
 *   adapter's option); an append past it removes the oldest.
 * - {@link count} is how many actions are kept.
 *
 * A call that rejects (on Redis with `TransportUnavailableError` while
 * Redis cannot be reached) stored nothing, or did what it would have done.
 */
export interface OperatorActionLog {
  /** Stores `action` with a new id and the store's clock; resolves to it. */
  append(action: NewOperatorAction): Promise<OperatorAction>;
  /** Up to `limit` actions, newest first, older than `before` when given. */
  list(query?: OperatorActionQuery): Promise<OperatorAction[]>;
  /** How many actions are kept. */
  count(): Promise<number>;
}
