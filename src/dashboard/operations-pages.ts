import type { FastifyInstance } from 'fastify';
import type { SnapshotSources } from './dashboard-snapshot.js';
import { registerDeadLetterBrowserApi } from './dead-letter-browser-api.js';
import { registerDeadLettersPage } from './dead-letters-page.js';
import { registerRouterApi } from './router-api.js';
import { registerRouterPage } from './router-page.js';

/** Registers the pages beside the overview and their API: the dead-letter browser and the router page. */
export function registerOperationsPages(app: FastifyInstance, base: string, sources: SnapshotSources): void {
  registerDeadLetterBrowserApi(app, base, sources);
  registerDeadLettersPage(app, base, sources);
  registerRouterApi(app, base, sources);
  registerRouterPage(app, base, sources);
}
