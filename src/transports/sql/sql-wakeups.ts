import type { SqlRunner } from './sql-db.js';

/** What new work a wake-up is about: events in the log, handler jobs, ordered lanes. */
export type WakeTopic = 'events' | 'jobs' | 'lanes';

/**
 * Hints that new work is there, so waiting workers look at once instead of
 * at their next poll. A wake-up is a hint, never the work: the rows are the
 * truth, and a missed wake-up only delays work until the next poll
 * (`pollMs`). On PostgreSQL a wake-up sent in a transaction is a `NOTIFY`
 * that every `LISTEN`ing process of the bus gets when, and only when, the
 * transaction commits; on SQLite only this process hears it (other
 * processes poll).
 */
export interface SqlWakeups {
  /**
   * Sends a wake-up for `topic` inside `tx`: heard by other processes when
   * `tx` commits. Call {@link SqlWakeups.local} after the commit for this
   * process.
   */
  notifyIn(tx: SqlRunner, topic: WakeTopic): Promise<void>;
  /**
   * The `pg_notify` channel and payload of a wake-up for `topic`, for a
   * statement that fires it itself (as {@link SqlWakeups.notifyIn} would).
   */
  notification(topic: WakeTopic): readonly [channel: string, payload: string];
  /**
   * Wakes this process's waiters on `topic` now: on `events`, the one that
   * waited longest only (the drains of a worker hand a wake-up on: a drain
   * whose claim came back full wakes the next), on the other topics all.
   */
  local(topic: WakeTopic): void;
  /**
   * Resolves on the next wake-up for `topic` from any process, or after
   * `ms`, or when {@link SqlWakeups.interrupt} is called, whichever comes
   * first. Never rejects.
   */
  wait(topic: WakeTopic, ms: number): Promise<void>;
  /**
   * Ends every wait now, and every wait begun after it until
   * {@link SqlWakeups.resume} (a worker's shutdown): a loop whose claim was
   * in flight when it was told to stop does not then wait out its poll.
   */
  interrupt(): void;
  /** Lets waits wait again after {@link SqlWakeups.interrupt} (a worker starts). */
  resume(): void;
  /** Stops listening; waits end. */
  close(): Promise<void>;
}
