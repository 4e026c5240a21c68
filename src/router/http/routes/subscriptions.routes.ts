import type { FastifyRequest } from 'fastify';
import { badRequest, notFound } from '../../errors/api.error.js';
import { topicNameProblem } from '../../router-names.js';
import type { SubscriberQueueStats, SubscriberRecord } from '../../subscriber.js';
import { callerOf, clientOf } from '../basic-auth.js';
import type { RouteContext } from '../route-context.js';
import { parseSubscriptionBody } from '../subscription-body.js';

const NO_QUEUE: SubscriberQueueStats = {
  sent: 0,
  queued: 0,
  oldest: null,
  batches: 0,
  health: 100,
  lastError: null,
};

/**
 * `POST /subscription` (alias `/subscriber`), `DELETE /subscriber`,
 * `DELETE /subscriber/topics/:name`, `GET /subscriptions` (alias
 * `/subscribers`). A client's subscriber is named after the client.
 */
export function registerSubscriptionRoutes({ app, deps, settings, auth }: RouteContext): void {
  const client = { onRequest: auth.guard(['client']) };

  for (const path of ['/subscription', '/subscriber']) {
    app.post(path, client, async (request, reply) => {
      const wanted = parseSubscriptionBody(request.body, settings.allowHttpUrls);
      await deps.topics.ensureTopics(wanted.topics);
      // One write of the settings: paused and the signing secrets are left as they are, and
      // ordered, max and timeout too when the body leaves them out (as Routemaster keeps the last
      // timeout and max), so an overlapping pause or rotation stays.
      await deps.subscribers.saveSubscriber({ name: clientOf(request), ...wanted });
      reply.code(204).send();
    });
  }

  // The root key may call these, as in Routemaster, and gets its answer: no subscriber is the root's.
  const rootOrClient = { onRequest: auth.guard(['root', 'client']) };

  app.delete('/subscriber', rootOrClient, async (request, reply) => {
    const name = subscriberOf(request);
    if (!(await deps.subscribers.removeSubscriber(name))) throw noSubscriber();
    reply.code(204).send();
  });

  app.delete<{ Params: { name: string } }>(
    '/subscriber/topics/:name',
    rootOrClient,
    async (request, reply) => {
      const name = subscriberOf(request);
      const topic = request.params.name;
      const problem = topicNameProblem(topic);
      if (problem !== undefined) throw badRequest('bad_topic', problem);
      const outcome = await deps.subscribers.unsubscribe(name, topic);
      if (outcome === 'no-subscriber') throw noSubscriber();
      if (outcome === 'not-subscribed')
        throw notFound('not_subscribed', `this client is not subscribed to "${topic}"`);
      reply.code(204).send();
    },
  );

  for (const path of ['/subscriptions', '/subscribers']) {
    app.get(path, { onRequest: auth.guard(['root', 'client']) }, async (request) => {
      const caller = callerOf(request);
      const [subscribers, stats] = await Promise.all([
        deps.subscribers.listSubscribers(),
        deps.batches.stats(),
      ]);
      return subscribers.map((subscriber) =>
        describe(
          subscriber,
          stats[subscriber.name] ?? NO_QUEUE,
          caller.kind === 'root' || caller.name === subscriber.name,
        ),
      );
    });
  }
}

/**
 * One entry of `GET /subscriptions`: Routemaster's fields (with real `sent`
 * and `oldest`), then the extensions. `uuid` is the credential the router
 * sends with deliveries, so only the root key and the subscriber itself see
 * it (others get null; Routemaster shows it to every client).
 */
function describe(subscriber: SubscriberRecord, stats: SubscriberQueueStats, mayKnowUuid: boolean) {
  return {
    subscriber: subscriber.name,
    uuid: mayKnowUuid ? subscriber.uuid : null,
    callback: subscriber.callback,
    max_events: subscriber.maxEvents,
    timeout: subscriber.timeoutMs,
    topics: subscriber.topics,
    events: { sent: stats.sent, queued: stats.queued, oldest: stats.oldest },
    batches: stats.batches,
    health: stats.health,
    // Why deliveries fail now (a status or an error code, never a credential); null once one is delivered.
    last_error: stats.lastError,
    paused: subscriber.paused,
    ordered: subscriber.ordered,
    signed: subscriber.signingSecrets.length > 0,
  };
}

/** The calling client's subscriber name; a 404 for the root key, which has none (Routemaster's answer). */
function subscriberOf(request: FastifyRequest): string {
  const caller = callerOf(request);
  if (caller.kind === 'root') {
    throw notFound(
      'no_subscriber',
      'the root key has no subscription: call with the token of the client whose subscription it is',
    );
  }
  return caller.name;
}

function noSubscriber() {
  return notFound('no_subscriber', 'this client has no subscription: POST /subscription first');
}
