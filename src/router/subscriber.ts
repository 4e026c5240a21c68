/** A subscriber: one client's subscription, as `POST /subscription` sets it. */
export interface SubscriberRecord {
  /** The client (its token's name). */
  readonly name: string;
  /** The URL batches are POSTed to. */
  readonly callback: string;
  /**
   * The username of the HTTP Basic credentials sent with each delivery
   * (password `x`); `null` when the subscription gave none: deliveries then
   * carry no credentials.
   */
  readonly uuid: string | null;
  /** A batch is ready when it holds this many events. */
  readonly maxEvents: number;
  /** ... or this long after its first event, ms. */
  readonly timeoutMs: number;
  /** The topics it receives. */
  readonly topics: readonly string[];
  /** While paused, its batches fill up but none is delivered. */
  readonly paused: boolean;
  /** Deliver one batch at a time, in the order they were made. */
  readonly ordered: boolean;
  /**
   * Secrets for Standard Webhooks signatures (`whsec_…`); two during a
   * rotation, none to send unsigned deliveries.
   */
  readonly signingSecrets: readonly string[];
}

/** What the router knows of a subscriber's queue, for `GET /subscriptions` and metrics. */
export interface SubscriberQueueStats {
  /** Events delivered with a 2xx, ever. */
  readonly sent: number;
  /** Events waiting (early, ready or being delivered). */
  readonly queued: number;
  /** When the oldest waiting event was queued, epoch ms; `null` when none waits. */
  readonly oldest: number | null;
  /** Batches waiting. */
  readonly batches: number;
  /** Health points 0..100: +1 per delivered batch, -2 per failed one. */
  readonly health: number;
  /**
   * Why the last delivery failed, and when (epoch ms); `null` when none has
   * failed since the last one delivered.
   */
  readonly lastError: { readonly message: string; readonly at: number } | null;
}
