/** A batch of events for one subscriber, as a delivery worker takes it. */
export interface Batch {
  /** Unique id, stable across retries: it is also the `webhook-id` of signed deliveries. */
  readonly id: string;
  /** The subscriber it is for. */
  readonly subscriber: string;
  /** The events, in the order they were published, each as the JSON delivered. */
  readonly events: readonly string[];
  /** When the batch was made (its first event queued), epoch ms. */
  readonly createdAt: number;
  /** Deliveries tried before this one. */
  readonly attempts: number;
  /** The subscriber's health points when the batch was taken. */
  readonly health: number;
  /** The last failure's message, when a delivery failed before. */
  readonly lastError?: string;
}
