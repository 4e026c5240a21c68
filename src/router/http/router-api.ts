import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { ApiError } from '../errors/api.error.js';
import { IngestCoalescer } from '../ingest-coalescer.js';
import { type ApiSettings, resolveApiSettings } from './api-settings.js';
import { Authenticator } from './basic-auth.js';
import { FailureLog } from './failure-log.js';
import { registerJsonBody } from './json-body.js';
import type { RouteContext } from './route-context.js';
import type { RouterApiDeps } from './router-api-deps.js';
import { registerApiTokenRoutes } from './routes/api-tokens.routes.js';
import { registerHealthRoutes } from './routes/health.routes.js';
import { registerSubscriberExtraRoutes } from './routes/subscriber-extras.routes.js';
import { registerSubscriptionRoutes } from './routes/subscriptions.routes.js';
import { registerTopicRoutes } from './routes/topics.routes.js';
import { TokenCache } from './token-cache.js';

/** Where {@link RouterApi.listen} listens. */
export interface ListenOptions {
  /** @defaultValue 0 (any free port) */
  readonly port?: number;
  /** @defaultValue '127.0.0.1' */
  readonly host?: string;
}

/** The router's HTTP API: a Fastify instance, not yet listening. */
export interface RouterApi {
  /** The Fastify instance (`app.inject` for in-process calls, `app.close()` to stop). */
  readonly app: FastifyInstance;
  /** Listens and resolves with the base URL, e.g. `https://127.0.0.1:43121`. */
  listen(options?: ListenOptions): Promise<string>;
  /** Stops listening, letting requests in flight finish. */
  close(): Promise<void>;
}

/**
 * The Routemaster-compatible HTTP API of the router (see issue 10): tokens,
 * publishing, topics, subscriptions, pulse and health, plus pause/resume,
 * signing secrets and metrics. HTTPS when `settings.tls` is given.
 */
export function createRouterApi(deps: RouterApiDeps, settings: ApiSettings): RouterApi {
  const resolved = resolveApiSettings(settings);
  const now = deps.now ?? Date.now;
  const tokenCache = new TokenCache(resolved.tokenCacheMs, now);
  const auth = new Authenticator(resolved.rootKey, deps.tokens, tokenCache, resolved.realm);
  const app = Fastify({
    logger: false,
    bodyLimit: resolved.bodyLimit,
    ...(resolved.tls === undefined ? {} : { https: { key: resolved.tls.key, cert: resolved.tls.cert } }),
    // A URL Fastify cannot decode: our shape, and the path (it may hold a token) not echoed.
    frameworkErrors: (error, _request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 400;
      (reply as unknown as FastifyReply)
        .code(status)
        .send({ error: 'bad_request', message: 'the request URL or headers are malformed' });
    },
  }) as unknown as FastifyInstance;
  const failures = new FailureLog(deps.logger, now);

  registerJsonBody(app);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return reply.code(error.status).send(error.body());
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own refusals (body too large, bad content type): its messages quote no body.
      return reply.code(status).send({ error: fastifyCode(error), message: error.message });
    }
    const route = request.routeOptions.url ?? 'unknown';
    if (deps.isUnavailable?.(error) === true) {
      failures.report(route, request.method, error, 'router API: the store is unavailable');
      return reply.code(503).header('retry-after', '1').send({
        error: 'store_unavailable',
        message: 'the router cannot reach its store (Redis) now: try again shortly',
      });
    }
    failures.report(route, request.method, error, 'router API: a request failed');
    return reply.code(500).send({ error: 'internal', message: 'the router failed to answer; see its logs' });
  });
  app.setNotFoundHandler((request, reply) => {
    // The path is not echoed: it may hold a token (DELETE /api_tokens/...).
    reply.code(404).send({ error: 'not_found', message: `no ${request.method} endpoint at this path` });
  });
  const onRequest = deps.onRequest;
  if (onRequest !== undefined) {
    app.addHook('onResponse', async (request, reply) => {
      onRequest({
        method: request.method,
        route: request.routeOptions.url ?? 'unknown',
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
      });
    });
  }

  const ingest = new IngestCoalescer(deps.batches, now);
  const context: RouteContext = { app, deps, settings: resolved, auth, tokenCache, now, ingest };
  registerApiTokenRoutes(context);
  registerTopicRoutes(context);
  registerSubscriptionRoutes(context);
  registerSubscriberExtraRoutes(context);
  registerHealthRoutes(context);

  return {
    app,
    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      await app.listen({ port, host });
      const address = app.server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      return `${resolved.tls === undefined ? 'http' : 'https'}://${shownHost}:${bound}`;
    },
    close: () => app.close(),
  };
}

function fastifyCode(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'body_too_large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported_media_type';
    default:
      return 'bad_request';
  }
}
