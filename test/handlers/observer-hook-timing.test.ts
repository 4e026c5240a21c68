/**
 * When the observer hooks fire, and what they cost with no observer: an
 * unordered sync handler's `onRetry` fires once its retry job is enqueued
 * (not when the transport refuses it), and a bus with no hooks (and
 * `history.enabled` off, whose counting is an observer) does not time
 * handler runs until an observer is added with `bus.observe`.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/handlers/dispatcher.js';
import { runDrain } from '../../src/handlers/drain.js';
import type { HandlerJob } from '../../src/handlers/handler-job.js';
import { ObserverSet } from '../../src/handlers/observer-set.js';
import { type HandledRun, silentLogger } from '../../src/index.js';
import { SoloGate } from '../../src/support/solo-gate.js';
import { busPipeline } from '../helpers/bus-pipeline.js';
import { fastConfig } from '../helpers/buses.js';
import { embeddedTransport } from '../helpers/embedded.js';
import { PIPE_EVENTS, PipeItem } from '../helpers/handler-paths.js';
import { Recorder } from '../helpers/recorder.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testTransport } from '../helpers/transports.js';

const bed = redisTestBed('fixhandlers-hook-timing');
let buses = 0;

describe('onRetry of a sync handler', () => {
  it('fires once the retry job is enqueued, and not when the transport refuses it', async () => {
    const observer = new ObserverSet(silentLogger);
    const enqueued: string[] = [];
    // What was enqueued when onRetry fired.
    const seenAtRetry: string[][] = [];
    observer.add({ onRetry: () => void seenAtRetry.push([...enqueued]) });
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: {
        'PIPE.ITEM': [
          {
            handler: new Recorder().handler('sync', () => {
              throw new Error('down');
            }),
            sync: true,
            attempts: 3,
          },
        ],
      },
      transport: testTransport('sqlite'),
    });
    const pipeline = busPipeline(bus, observer);
    const drainOf = async (event: PipeItem, enqueue: (jobs: HandlerJob[]) => Promise<void>) => {
      const { log, deadLetters } = embeddedTransport({ name: `timing${++buses}` });
      await log.append([{ id: event.id, payload: bus.encode(event).payload }]);
      await runDrain({
        log,
        dispatcher: new Dispatcher(pipeline),
        enqueue,
        deadLetters,
        limits: { maxEvents: 1, ttlMs: 5_000, batchSize: 10, blockMs: 10, claimStaleAfterMs: 60_000 },
        consumer: 'c',
        stopping: () => false,
        solo: new SoloGate(),
      });
    };
    const accepted = PipeItem.create({ n: 1 });
    await drainOf(accepted, async (jobs) => void enqueued.push(...jobs.map((j) => j.jobId)));
    expect(seenAtRetry).toEqual([[enqueued[0]]]);
    expect(enqueued).toHaveLength(1);
    await drainOf(PipeItem.create({ n: 2 }), async () => {
      throw new Error('job refused by the queue');
    });
    expect(seenAtRetry).toHaveLength(1);
  });
});

describe('a bus with no observer', () => {
  it('does not time handler runs until an observer listens (bus.observe, as createBusMetrics does)', async () => {
    const rec = new Recorder();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: { 'PIPE.ITEM': [[rec.handler('sync'), true], rec.handler('async')] },
      // The history per minute counts through an observer of its own: off, the bus has none.
      config: fastConfig({ name: `quiet${++buses}`, history: { enabled: false } }),
      transport: testTransport('sqlite'),
      // Hooks left undefined are no hooks: this observer is not added.
      onHandled: undefined,
    });
    await bus.startWorker({ handleSignals: false });
    const now = vi.spyOn(performance, 'now');
    try {
      await bus.publish(PipeItem.create({ n: 1 }));
      await bus.whenIdle();
      expect(rec.runs).toHaveLength(2);
      expect(now).not.toHaveBeenCalled();
      const handled: HandledRun[] = [];
      bus.observe({ onHandled: (run) => void handled.push(run) });
      await bus.publish(PipeItem.create({ n: 2 }));
      await bus.whenIdle();
      expect(handled.map((run) => run.handler).sort()).toEqual(['async', 'sync']);
      expect(now).toHaveBeenCalledTimes(4);
    } finally {
      now.mockRestore();
    }
  });
});
