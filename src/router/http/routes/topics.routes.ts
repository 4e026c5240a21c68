import { ApiError, badRequest, notFound } from '../../errors/api.error.js';
import { topicNameProblem } from '../../router-names.js';
import { callerOf, clientOf } from '../basic-auth.js';
import { parsePublishBody } from '../publish-body.js';
import type { RouteContext } from '../route-context.js';

type TopicRoute = { Params: { name: string } };

/** `POST /topics/:name` (publish), `GET /topics`, `DELETE /topics/:name`. */
export function registerTopicRoutes({ app, deps, settings, auth, now, ingest }: RouteContext): void {
  app.post<TopicRoute>('/topics/:name', { onRequest: auth.guard(['client']) }, async (request, reply) => {
    const topic = checkedTopic(request.params.name);
    const publisher = clientOf(request);
    const event = parsePublishBody(topic, request.body, now(), settings);
    const result = await ingest.ingest(publisher, topic, JSON.stringify(event));
    if (!result.ok) {
      throw new ApiError(
        403,
        'topic_claimed',
        `topic "${topic}" belongs to client "${result.owner}": only the first client to publish to a topic may publish to it`,
      );
    }
    deps.onPublished?.(topic, 1);
    reply.code(200).send();
  });

  app.get('/topics', { onRequest: auth.guard(['root', 'client']) }, async () => {
    const topics = await deps.topics.listTopics();
    return topics.map(({ name, publisher, events }) => ({ name, publisher, events }));
  });

  app.delete<TopicRoute>(
    '/topics/:name',
    { onRequest: auth.guard(['root', 'client']) },
    async (request, reply) => {
      const name = checkedTopic(request.params.name);
      const topic = (await deps.topics.listTopics()).find((candidate) => candidate.name === name);
      if (topic === undefined) throw notFound('no_topic', `there is no topic "${name}"`);
      const caller = callerOf(request);
      // Beyond Routemaster (where any client may delete any topic): only its publisher or the root key.
      if (caller.kind === 'client' && topic.publisher !== null && topic.publisher !== caller.name) {
        throw new ApiError(
          403,
          'topic_claimed',
          `topic "${name}" belongs to client "${topic.publisher}": only it or the root key may delete it`,
        );
      }
      if (!(await deps.topics.removeTopic(name))) throw notFound('no_topic', `there is no topic "${name}"`);
      reply.code(204).send();
    },
  );
}

function checkedTopic(name: string): string {
  const problem = topicNameProblem(name);
  if (problem !== undefined) throw badRequest('bad_topic', problem);
  return name;
}
