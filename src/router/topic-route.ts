import type { Event } from '../events/event.js';
import { HandlerConfigError } from '../handlers/errors/handler-config.error.js';
import { NonRetryableError } from '../handlers/errors/non-retryable.error.js';
import { defineHandler, type Handler } from '../handlers/handler.js';
import type { BatchStore } from './batch-store.js';
import { ROUTER_EVENT_TYPES, type RouterEvent, type RouterEventType } from './router-event.js';
import { clientNameProblem, topicNameProblem, urlProblem } from './router-names.js';

/** What a routed event becomes on its topic; `t` defaults to the event's `createdAt`. */
export interface TopicMessage {
  /** What happened to the entity. */
  readonly type: RouterEventType;
  /** The entity's URL (https, no query string, unless `allowHttpUrls`). */
  readonly url: string;
  /** Optional payload, a JSON object. */
  readonly data?: Readonly<Record<string, unknown>>;
  /** When it happened, epoch ms. @defaultValue the event's `createdAt` */
  readonly t?: number;
}

/** Options of {@link topicRoute}. */
export interface TopicRouteOptions<E extends Event> {
  /** The handler's name, e.g. `records.to-topic`. */
  readonly name: string;
  /** The topic (`[a-z_]{1,64}`). */
  readonly topic: string;
  /** The client that publishes (and owns) the topic, as an API token's name would. */
  readonly publisher: string;
  /** The router's batch store, or a function giving it (`() => bus.router.batches`). */
  readonly store: BatchStore | (() => BatchStore);
  /** Maps a bus event to its topic message; `undefined` routes nothing for that event. */
  readonly toMessage: (event: E) => TopicMessage | undefined;
  /**
   * Accept http entity URLs (development). The route checks messages itself,
   * so this is its own switch, apart from the router's `allowHttpUrls`.
   * @defaultValue false
   */
  readonly allowHttpUrls?: boolean;
}

/**
 * A handler that routes a bus event to a router topic with no HTTP hop: put
 * it in `EVENT_HANDLERS` under the events' handling key, and
 * `uow.register(new SendEventOp(event))` ends as a webhook to the topic's
 * subscribers, after commit, through the outbox, retried like any handler.
 * A message the router would refuse (bad type, url or topic, or a topic
 * owned by another client) fails with `NonRetryableError` and is
 * dead-lettered at once.
 */
export function topicRoute<E extends Event>(options: TopicRouteOptions<E>): Handler<E> {
  const problem =
    topicNameProblem(options.topic) ?? clientNameProblem(options.publisher, 'topicRoute publisher');
  if (problem !== undefined) throw new HandlerConfigError(`topicRoute ${options.name}: ${problem}`);
  const storeOf = typeof options.store === 'function' ? options.store : () => options.store as BatchStore;
  return defineHandler<E>(options.name, async (event) => {
    const message = options.toMessage(event);
    if (message === undefined) return;
    const routed = toRouterEvent(options.topic, message, event, options.allowHttpUrls ?? false);
    const result = await storeOf().ingest(
      options.publisher,
      options.topic,
      [JSON.stringify(routed)],
      Date.now(),
    );
    if (!result.ok) {
      throw new NonRetryableError(
        `topic ${options.topic} is owned by client ${result.owner}, not ${options.publisher}: route to another topic or delete the topic first`,
      );
    }
  });
}

function toRouterEvent(topic: string, message: TopicMessage, event: Event, allowHttp: boolean): RouterEvent {
  if (!(ROUTER_EVENT_TYPES as readonly string[]).includes(message.type)) {
    throw new NonRetryableError(
      `topicRoute to ${topic}: type must be one of ${ROUTER_EVENT_TYPES.join(', ')}, got ${JSON.stringify(message.type)}`,
    );
  }
  const badUrl = urlProblem(message.url, `topicRoute to ${topic}: url`, allowHttp);
  if (badUrl !== undefined) {
    // The route checks URLs itself (no router is asked): say which switch is the route's.
    const hint = /not http\b/.test(badUrl) ? '; for development, pass allowHttpUrls: true to topicRoute' : '';
    throw new NonRetryableError(`${badUrl.replace(/ \(http is refused[^)]*\)/, '')}${hint}`);
  }
  const data = message.data;
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) {
    throw new NonRetryableError(`topicRoute to ${topic}: data must be a JSON object or left out`);
  }
  const t = message.t ?? event.createdAt.getTime();
  return { topic, type: message.type, url: message.url, t, ...(data !== undefined ? { data } : {}) };
}
