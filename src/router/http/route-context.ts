import type { FastifyInstance } from 'fastify';
import type { IngestCoalescer } from '../ingest-coalescer.js';
import type { ResolvedApiSettings } from './api-settings.js';
import type { Authenticator } from './basic-auth.js';
import type { RouterApiDeps } from './router-api-deps.js';
import type { TokenCache } from './token-cache.js';

/** What every group of routes is registered with. */
export interface RouteContext {
  /** The Fastify instance. */
  readonly app: FastifyInstance;
  /** The stores and hooks. */
  readonly deps: RouterApiDeps;
  /** Settings with defaults applied. */
  readonly settings: ResolvedApiSettings;
  /** Credential checks. */
  readonly auth: Authenticator;
  /** Tokens trusted for a while (forget one when it is deleted). */
  readonly tokenCache: TokenCache;
  /** The clock, epoch ms. */
  readonly now: () => number;
  /** Publishes, merged per topic within a turn of the event loop. */
  readonly ingest: IngestCoalescer;
}
