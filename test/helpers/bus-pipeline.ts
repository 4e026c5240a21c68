import { HandlerPipeline } from '../../src/handlers/handler-pipeline.js';
import { HandlerRunner } from '../../src/handlers/handler-runner.js';
import { ObserverSet } from '../../src/handlers/observer-set.js';
import type { EventBus } from '../../src/index.js';
import { silentLogger } from '../../src/support/logger.js';

/**
 * A handler pipeline over `bus`'s handlers and serializer, for a drain or a
 * dispatcher a test builds by hand: every handler may run (no pause or block
 * rules), up to 5 deliveries, its hooks told to `observer`.
 */
export function busPipeline(
  bus: EventBus,
  observer: ObserverSet = new ObserverSet(silentLogger),
): HandlerPipeline {
  return new HandlerPipeline({
    plans: bus.handlers,
    decode: (payload) => bus.serializer.deserialize(payload),
    runner: new HandlerRunner(async () => {}, silentLogger),
    rules: { verdict: () => 'run' },
    settings: { maxDeliveries: 5 },
    logger: silentLogger,
    observer,
  });
}
