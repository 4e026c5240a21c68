/**
 * What a bus asks of its transport beyond the core ports: router stores and
 * BullMQ queues are capabilities an adapter has or leaves out, read from the
 * transport itself (no room above the adapters names one). A throwaway
 * adapter, made here outside `src` by wrapping the in-process one, shows
 * what a bus does without them.
 */
import { describe, expect, it } from 'vitest';
import type { Transport } from '../../src/bus/transport.js';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { defineHandler, EventBus, RouterStoresUnsupportedError, silentLogger } from '../../src/index.js';
import { MemoryTransport } from '../../src/transports/memory/index.js';
import { type RecordEvent, recordCreated, TEST_EVENTS } from '../helpers/events.js';

/** The in-process adapter's core ports, without its router stores. */
function withoutRouterStores(inner: MemoryTransport): Transport {
  return {
    log: inner.log,
    jobs: inner.jobs,
    rules: inner.rules,
    deadLetters: inner.deadLetters,
    ordering: inner.ordering,
    publish: (events) => inner.publish(events),
    releaseDue: (limit) => inner.releaseDue(limit),
    startWorker: (runtime) => inner.startWorker(runtime),
    workerOrdering: () => inner.workerOrdering(),
    close: () => inner.close(),
  };
}

describe('a transport without router stores', () => {
  it('runs the bus, and bus.router throws RouterStoresUnsupportedError naming it', async () => {
    const inner = new MemoryTransport(resolveConfig({ transport: 'memory' }));
    const transport = withoutRouterStores(inner);
    const seen: string[] = [];
    const bus = new EventBus(
      {
        events: TEST_EVENTS,
        handlers: {
          RECORD: [
            [defineHandler<RecordEvent>('capabilities.seen', async (e) => void seen.push(e.recid)), true],
          ],
        },
        logger: silentLogger,
      },
      transport,
    );
    try {
      await bus.startWorker({ handleSignals: false });
      await bus.publish(recordCreated('a'));
      await bus.whenIdle(5_000);
      expect(seen).toEqual(['a']);
      const error = (() => {
        try {
          return bus.router;
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(RouterStoresUnsupportedError);
      expect((error as RouterStoresUnsupportedError).code).toBe('COMMITBUS_ROUTER_STORES_UNSUPPORTED');
      expect((error as Error).message).toMatch(/no routerStores/);
    } finally {
      await bus.close();
    }
  });

  it('the in-process adapter has them: bus.router opens its stores once and shares the bus’s dead letters', async () => {
    const bus = new EventBus({ events: TEST_EVENTS, logger: silentLogger, config: { transport: 'memory' } });
    try {
      expect(bus.router).toBe(bus.router);
      expect(bus.router.deadLetters).toBe(bus.transport.deadLetters);
      expect(bus.transport.bullmqQueues).toBeUndefined();
    } finally {
      await bus.close();
    }
  });
});
