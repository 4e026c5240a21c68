import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Closable } from '../support/closable.js';
import type { BatchStore } from './batch-store.js';
import type { DeliveryAttemptLog } from './delivery-attempt-log.js';
import type { SubscriberStore } from './subscriber-store.js';
import type { TokenStore } from './token-store.js';
import type { TopicStore } from './topic-store.js';

/** Every store a router uses, from one adapter; `close()` ends the connections it opened. */
export interface RouterStores extends Closable {
  /** API tokens. */
  readonly tokens: TokenStore;
  /** Topics. */
  readonly topics: TopicStore;
  /** Subscribers. */
  readonly subscribers: SubscriberStore;
  /** The delivery queue. */
  readonly batches: BatchStore;
  /** Each subscriber's newest delivery attempts (time, status or error, duration). */
  readonly attempts: DeliveryAttemptLog;
  /** Where given-up batches go: the bus's own dead-letter store. */
  readonly deadLetters: DeadLetterStore;
  /** Resolves when the stores answer (`GET /pulse`). */
  ping(): Promise<unknown>;
  /** Whether an error from the stores means they cannot be reached now (not that the call was wrong). */
  isUnavailable(error: unknown): boolean;
}
