import type { AppendResult, OutgoingEvent } from '../events/outgoing-event.js';

/** One event waiting in the log, as a drain reads it. */
export interface LogEntry {
  /** The log's own id for the entry (a stream id on Redis). */
  readonly entryId: string;
  /** The serialized event envelope. */
  readonly payload: string;
  /**
   * How many times the entry has been handed to a drain, this time included:
   * 1 when read, one more each time a drain takes it over from a drain that
   * died or stalled (a Redis stream's delivery count). Past `maxDeliveries`
   * its handlers are not run.
   * @defaultValue 1
   */
  readonly deliveries?: number;
}

/**
 * Where published events wait until a drain has handled them: a Redis stream
 * with a consumer group on the Redis transport, rows of `commitbus_events`
 * on the SQL one (PostgreSQL, or SQLite: the embedded default).
 * Entries read by a consumer stay pending until acknowledged; entries pending
 * too long (their drain died) can be claimed by another consumer. Delayed
 * events wait beside the log until due.
 */
export interface EventLog {
  /**
   * Appends events, in order, in one round trip. Drops an id accepted within
   * the dedupe window; holds an event with a future `deliverAt` back until
   * `EventLog.releaseDue` finds it due.
   */
  append(events: readonly OutgoingEvent[]): Promise<AppendResult>;
  /** Moves up to `limit` delayed events that are due into the log; resolves to how many. */
  releaseDue(limit: number): Promise<number>;
  /** Events waiting for their delivery time. */
  delayed(): Promise<number>;
  /** Reads up to `count` new entries for `consumer`, waiting up to `blockMs` for the first. */
  read(consumer: string, count: number, blockMs: number): Promise<LogEntry[]>;
  /**
   * Takes over for `consumer` the oldest entry pending longer than
   * `minIdleMs` (its drain died or stalled), counting a delivery; resolves to
   * it, or undefined when there is none. One entry at a time, so only the
   * entry a drain is handling when it dies gains a delivery, not the rest of
   * that drain's batch.
   */
  claimStale(consumer: string, minIdleMs: number): Promise<LogEntry | undefined>;
  /**
   * Whether an entry has been pending longer than `minIdleMs`, so that
   * `claimStale` would find one. Reads only: claims nothing and
   * counts no delivery.
   */
  hasStale(minIdleMs: number): Promise<boolean>;
  /** Acknowledges and removes handled entries. */
  ack(entryIds: readonly string[]): Promise<void>;
  /** Entries not yet acknowledged (waiting or being handled). */
  backlog(): Promise<number>;
  /** When the oldest entry not yet acknowledged was appended, or undefined when there is none. */
  oldestAt(): Promise<Date | undefined>;
  /** Forgets a consumer that has nothing pending. */
  removeConsumer(consumer: string): Promise<void>;
}
