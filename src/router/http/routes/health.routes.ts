import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../../support/logger.js';
import type { RouteContext } from '../route-context.js';

/** How long `GET /pulse/scaling` holds its answer when it advises scaling up, as Routemaster does. */
export const SCALE_UP_DELAY_MS = 1_000;

/**
 * How long `GET /pulse/scaling` reuses a count of the due batches: probes
 * arriving while one is under way, or within this many ms of it, share it,
 * so a flood of probes costs the store two counts a second (on Redis, a
 * script walking every subscriber) instead of one each. Shorter than
 * {@link SCALE_UP_DELAY_MS}: a probe sent as the last held answer comes
 * back is counted afresh.
 */
export const SCALING_COUNT_REUSE_MS = 500;

/**
 * `GET /pulse` (204 when the stores answer, else 500), `GET /pulse/scaling`
 * (Routemaster's worker-scaling probe), `GET /health`, `GET /health/ping`
 * and `GET /metrics`.
 */
export function registerHealthRoutes({ app, deps, settings, auth, now }: RouteContext): void {
  const ping = deps.ping ?? (() => deps.batches.memoryUsed());
  const tokenHolders = { onRequest: auth.guard(['root', 'client']) };
  let lastCount: { readonly at: number; readonly due: Promise<number> } | undefined;
  const countDue = (): Promise<number> => {
    // The window on the monotonic clock: a wall clock set back (or a frozen test clock) must not
    // keep an old count for good.
    const at = performance.now();
    if (lastCount === undefined || at - lastCount.at >= SCALING_COUNT_REUSE_MS) {
      const due = deps.batches.countDue(now() + settings.scalingDeadlineMs);
      const count = { at, due };
      lastCount = count;
      // A failed count is not reused: the next probe asks the store again.
      due.catch(() => {
        if (lastCount === count) lastCount = undefined;
      });
    }
    return lastCount.due;
  };

  app.get('/pulse', tokenHolders, async (_request, reply) => {
    try {
      await ping();
      reply.code(204).send();
    } catch (error) {
      deps.logger.error({ error: describeError(error) }, 'router pulse: the stores do not answer');
      reply.code(500).send({ error: 'no_pulse', message: 'the router cannot reach its stores' });
    }
  });

  // Routemaster's probe: an autoscaler reads its response time (a second when workers lag behind),
  // or the body's `scale_up`. Counted at most twice a second, however many probes come.
  app.get('/pulse/scaling', tokenHolders, async () => {
    const due = await countDue();
    const scaleUp = due >= settings.scalingThreshold;
    if (scaleUp) await sleep(SCALE_UP_DELAY_MS);
    return {
      due,
      threshold: settings.scalingThreshold,
      deadline_ms: settings.scalingDeadlineMs,
      scale_up: scaleUp,
    };
  });

  app.get('/health', async () => ({}));
  // Routemaster's liveness probe, with or without `.json`.
  for (const path of ['/health/ping', '/health/ping.json']) {
    app.get(path, async () => ({ pong: new Date(now()).toISOString() }));
  }

  const registry = deps.metrics;
  if (registry !== undefined) {
    const options = settings.metricsNeedRootKey ? { onRequest: auth.guard(['root']) } : {};
    app.get('/metrics', options, async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  }
}
