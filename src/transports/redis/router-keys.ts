/**
 * The router's Redis keys, all under the bus's hash tag (`{<prefix>:<name>}:router:`,
 * so one cluster slot). Scripts get the fixed ones and those of the
 * subscriber or topic they name as KEYS; the keys of batches, and of the
 * subscribers a topic fans out to, are known only while a script runs: it
 * builds them from {@link RouterKeys.prefix} (see the `router-*.lua` headers).
 */
export interface RouterKeys {
  /** What every router key starts with: `<tag>:router:`. */
  readonly prefix: string;
  /** Hash: token hash to the stored token's JSON. */
  readonly tokens: string;
  /** Hash: topic name to its publisher (`''` while none). */
  readonly topics: string;
  /** Hash: topic name to events published to it. */
  readonly topicEvents: string;
  /** Set of subscriber names. */
  readonly subscribers: string;
  /** Counter numbering batches in creation order. */
  readonly seq: string;
  /** Sorted set: every batch id by creation (its seq). */
  readonly all: string;
  /** Sorted set: early batch ids by deadline. */
  readonly early: string;
  /**
   * Sorted set: the subscribers that may send a ready batch now (not paused,
   * under their in-flight cap, an ordered one's oldest batch ready), by the
   * due time of the batch each would send next.
   */
  readonly due: string;
  /** Sorted set: pending batch ids by lease end. */
  readonly pending: string;
  /** Hash: pending batch id to the worker holding it. */
  readonly holders: string;
  /** List pushed to when a batch may have become ready; `waitForWork` pops it. */
  readonly wake: string;
  /**
   * Hash of a subscriber: record (JSON of its other settings), max, timeout,
   * paused, ordered, secrets (JSON array), sent, queued, health, inflight,
   * cap, early.
   */
  subscriber(name: string): string;
  /** Set of a subscriber's topics. */
  subscriberTopics(name: string): string;
  /** Sorted set: a subscriber's batch ids by creation (seq). */
  subscriberBatches(name: string): string;
  /** Sorted set: a subscriber's ready batch ids by due time. */
  subscriberReady(name: string): string;
  /** Set of a topic's subscribers. */
  topicSubscribers(topic: string): string;
}

/** The router keys under a bus's hash tag (`QueueNames.tag`). */
export function routerKeys(tag: string): RouterKeys {
  const prefix = `${tag}:router:`;
  return {
    prefix,
    tokens: `${prefix}tokens`,
    topics: `${prefix}topics`,
    topicEvents: `${prefix}topic-events`,
    subscribers: `${prefix}subscribers`,
    seq: `${prefix}seq`,
    all: `${prefix}all`,
    early: `${prefix}early`,
    due: `${prefix}due`,
    pending: `${prefix}pending`,
    holders: `${prefix}holders`,
    wake: `${prefix}wake`,
    subscriber: (name) => `${prefix}s:${name}`,
    subscriberTopics: (name) => `${prefix}st:${name}`,
    subscriberBatches: (name) => `${prefix}sb:${name}`,
    subscriberReady: (name) => `${prefix}sr:${name}`,
    topicSubscribers: (topic) => `${prefix}ts:${topic}`,
  };
}
