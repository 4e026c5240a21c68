import type { FastifyInstance, FastifyReply } from 'fastify';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { type HistoryView, readHistory } from './bus-history.js';
import { failure } from './dashboard-api.js';
import type { SnapshotSources } from './dashboard-snapshot.js';
import { noAnswerMessage } from './read-within.js';

/**
 * `GET <basePath>/api/history`: the bus's history, one point a minute for
 * the last 24 h, zero-filled (`{ points }`, see {@link HistoryView}); 503
 * when it gives no answer within `readTimeoutMs` or its transport is down.
 */
export function registerHistoryApi(app: FastifyInstance, base: string, sources: SnapshotSources): void {
  const { bus, readTimeoutMs } = sources;
  app.get(`${base}/api/history`, async (_request, reply: FastifyReply) => {
    try {
      const history = await readWithin(() => readHistory(bus), readTimeoutMs);
      if (history !== NO_ANSWER) return reply.header('cache-control', 'no-store').send(history);
      return reply.code(503).send({ message: noAnswerMessage(readTimeoutMs) });
    } catch (error) {
      return failure(reply, error, bus.logger);
    }
  });
}
