/** One delivery attempt of a batch to a subscriber, as the router's attempt log keeps it. */
export interface DeliveryAttempt {
  /** When the POST started, epoch ms. */
  readonly at: number;
  /** The batch's id. */
  readonly batch: string;
  /** How many events the batch held. */
  readonly events: number;
  /** Whether the subscriber answered 2xx. */
  readonly ok: boolean;
  /** The HTTP status it answered, `null` when none came (a timeout, no connection). */
  readonly status: number | null;
  /** Why it failed (`HTTP 503`, `ECONNREFUSED`, ...); `null` when it did not. Never the credentials. */
  readonly error: string | null;
  /** How long the POST took, ms. */
  readonly durationMs: number;
}

/** How many attempts the log keeps per subscriber: the newest, the older ones dropped as new ones come. */
export const ATTEMPT_LOG_SIZE = 100;

/**
 * The port of the router's delivery attempt log: per subscriber, its newest
 * {@link ATTEMPT_LOG_SIZE} attempts (a Redis list under the router's hash
 * tag). Bounded whatever the traffic; what it holds is for operators
 * (the dashboard's router page), not for delivery, which never reads it.
 */
export interface DeliveryAttemptLog {
  /**
   * Appends `attempt` to `subscriber`'s log and drops, in the same atomic
   * step, the attempts beyond the newest {@link ATTEMPT_LOG_SIZE}. A log not
   * written to for 7 days goes (a removed subscriber's, say).
   */
  record(subscriber: string, attempt: DeliveryAttempt): Promise<void>;
  /** `subscriber`'s newest attempts, newest first, at most `limit` (at most {@link ATTEMPT_LOG_SIZE}); `[]` for none. */
  recent(subscriber: string, limit?: number): Promise<DeliveryAttempt[]>;
}

/** The share of `attempts` that delivered, 0..1; `null` for none. */
export function successRate(attempts: readonly DeliveryAttempt[]): number | null {
  if (attempts.length === 0) return null;
  return attempts.filter((a) => a.ok).length / attempts.length;
}
