import type { Registry } from 'prom-client';
import type { Logger } from '../../support/logger.js';
import type { BatchStore } from '../batch-store.js';
import type { SubscriberStore } from '../subscriber-store.js';
import type { TokenStore } from '../token-store.js';
import type { TopicStore } from '../topic-store.js';

/** One answered request, for metrics. */
export interface AnsweredRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The route's pattern (`/topics/:name`), never the raw path (it may hold a token); `unknown` for no route. */
  readonly route: string;
  /** The status code sent. */
  readonly status: number;
  /** Time from request to response, ms. */
  readonly durationMs: number;
}

/** What the router's HTTP API works with. */
export interface RouterApiDeps {
  /** API tokens. */
  readonly tokens: TokenStore;
  /** Topics. */
  readonly topics: TopicStore;
  /** Subscribers. */
  readonly subscribers: SubscriberStore;
  /** The delivery queue: publishing and queue figures. */
  readonly batches: BatchStore;
  /** Where request failures are logged. */
  readonly logger: Logger;
  /**
   * Resolves when the stores answer, rejects when not, for `GET /pulse`.
   * @defaultValue asks the batch store for `memoryUsed()`
   */
  readonly ping?: () => Promise<unknown>;
  /**
   * Whether a failure means the store cannot be reached now (answered 503
   * with `Retry-After`, instead of 500).
   * @defaultValue never
   */
  readonly isUnavailable?: (error: unknown) => boolean;
  /** Called after events were queued on a topic (for a published-events counter). */
  readonly onPublished?: (topic: string, count: number) => void;
  /** Called after each response (for request metrics). */
  readonly onRequest?: (answered: AnsweredRequest) => void;
  /** Served as Prometheus text at `GET /metrics` when given. */
  readonly metrics?: Registry;
  /**
   * The clock, epoch ms.
   * @defaultValue Date.now
   */
  readonly now?: () => number;
}
