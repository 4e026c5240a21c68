import type { FastifyInstance, FastifyReply } from 'fastify';
import { type DeliveryAttempt, successRate } from '../router/delivery-attempt-log.js';
import type { RouterStores } from '../router/router-stores.js';
import type { TopicRecord } from '../router/topic.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { failure } from './dashboard-api.js';
import { readSubscribers, type SnapshotSources, type SubscriberView } from './dashboard-snapshot.js';
import { noAnswerMessage } from './read-within.js';

/** How many of each subscriber's newest attempts the router page lists. */
export const ROUTER_ATTEMPTS_SHOWN = 20;

/** A subscriber on the router page: its view on the overview (never its secrets), with its attempts. */
export interface RouterSubscriberView extends SubscriberView {
  /** The share of its logged attempts (the newest, at most `ATTEMPT_LOG_SIZE`) that delivered, 0..1; `null` for none. */
  readonly successRate: number | null;
  /** How many attempts `successRate` is of. */
  readonly attemptsLogged: number;
  /** Its newest attempts, newest first, at most {@link ROUTER_ATTEMPTS_SHOWN}. */
  readonly attempts: readonly DeliveryAttempt[];
}

/** What the router page shows: the topics and the subscribers. */
export interface RouterView {
  /** Every topic, with its publisher and how many events it took. */
  readonly topics: readonly TopicRecord[];
  /** Every subscriber. */
  readonly subscribers: readonly RouterSubscriberView[];
}

/** Reads the router's topics, subscribers, queues and attempt logs (one log read per subscriber). */
export async function readRouterView(router: RouterStores): Promise<RouterView> {
  const [topics, subscribers] = await Promise.all([router.topics.listTopics(), readSubscribers(router)]);
  const views = await Promise.all(
    subscribers.map(async (s): Promise<RouterSubscriberView> => {
      const logged = await router.attempts.recent(s.name);
      return {
        ...s,
        successRate: successRate(logged),
        attemptsLogged: logged.length,
        attempts: logged.slice(0, ROUTER_ATTEMPTS_SHOWN),
      };
    }),
  );
  return { topics, subscribers: views };
}

/** The message of a dashboard started without the router's stores. */
export const NO_ROUTER =
  "this dashboard was started without the router's stores: pass router (e.g. bus.router) to startDashboard, or run commitbus dashboard --router";

/** `GET <basePath>/api/router`: the {@link RouterView}, or a 404 saying how to give the dashboard the router. */
export function registerRouterApi(app: FastifyInstance, base: string, sources: SnapshotSources): void {
  app.get(`${base}/api/router`, async (_request, reply: FastifyReply) => {
    const { router } = sources;
    if (router === undefined) return reply.code(404).send({ message: NO_ROUTER });
    try {
      const view = await readWithin(() => readRouterView(router), sources.readTimeoutMs);
      if (view !== NO_ANSWER) return view;
      return reply.code(503).send({ message: noAnswerMessage(sources.readTimeoutMs) });
    } catch (error) {
      return failure(reply, error, sources.bus.logger);
    }
  });
}
