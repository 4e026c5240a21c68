import { describeError } from '../../../support/logger.js';
import type { RouteContext } from '../route-context.js';

/** `GET /pulse` (204 when the stores answer, else 500), `GET /health` and `GET /metrics`. */
export function registerHealthRoutes({ app, deps, settings, auth }: RouteContext): void {
  const ping = deps.ping ?? (() => deps.batches.memoryUsed());

  app.get('/pulse', { onRequest: auth.guard(['root', 'client']) }, async (_request, reply) => {
    try {
      await ping();
      reply.code(204).send();
    } catch (error) {
      deps.logger.error({ error: describeError(error) }, 'router pulse: the stores do not answer');
      reply.code(500).send({ error: 'no_pulse', message: 'the router cannot reach its stores' });
    }
  });

  app.get('/health', async () => ({}));

  const registry = deps.metrics;
  if (registry !== undefined) {
    const options = settings.metricsNeedRootKey ? { onRequest: auth.guard(['root']) } : {};
    app.get('/metrics', options, async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  }
}
