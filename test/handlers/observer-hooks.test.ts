/**
 * The observer hooks of `createEventBus` (`onHandled`, `onHandlerFailed`,
 * `onRetry`, `onParked`, `onDeadLetter`), on every handler path (an
 * unordered sync chain, an async job, an ordered event's sync and async
 * lanes) and both transports: each fires exactly once per occurrence, with
 * the fields of what happened. Then the dead letters no handler run reports
 * (undecodable, crashed, undeliverable), and hooks that throw.
 */
import { describe, expect, it, vi } from 'vitest';
import { Dispatcher } from '../../src/handlers/dispatcher.js';
import { runDrain } from '../../src/handlers/drain.js';
import { ObserverSet } from '../../src/handlers/observer-set.js';
import {
  type BusObserver,
  type CommitbusOptions,
  type DeadLetter,
  type EventBus,
  type FailedRun,
  type HandledRun,
  type HandlerContext,
  type HandlerEntryOptions,
  type Logger,
  type ParkedRun,
  type ScheduledRetry,
  silentLogger,
} from '../../src/index.js';
import { SchedulingGate } from '../../src/scheduling/scheduling-gate.js';
import { SoloGate } from '../../src/support/solo-gate.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { SqlTransport } from '../../src/transports/sql/index.js';
import { busPipeline } from '../helpers/bus-pipeline.js';
import { fastConfig } from '../helpers/buses.js';
import { embeddedTransport } from '../helpers/embedded.js';
import {
  HANDLER_PATHS,
  type HandlerPath,
  PIPE_EVENTS,
  PipeItem,
  PipeKeyed,
} from '../helpers/handler-paths.js';
import { Recorder } from '../helpers/recorder.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, type TransportName, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = redisTestBed('i12observe-hooks');
let buses = 0;

type Behaviour = (event: PipeItem, ctx: HandlerContext) => void | Promise<void>;

/** Every hook call, in order, reduced to the fields the cases compare. */
class HookLog implements BusObserver {
  readonly handled: HandledRun[] = [];
  readonly failed: FailedRun[] = [];
  readonly retries: ScheduledRetry[] = [];
  readonly parked: ParkedRun[] = [];
  readonly letters: DeadLetter[] = [];

  onHandled = (run: HandledRun) => void this.handled.push(run);
  onHandlerFailed = (run: FailedRun) => void this.failed.push(run);
  onRetry = (retry: ScheduledRetry) => void this.retries.push(retry);
  onParked = (run: ParkedRun) => void this.parked.push(run);
  onDeadLetter = (letter: DeadLetter) => void this.letters.push(letter);

  /** The hooks alone, as `createEventBus` options. */
  options(): BusObserver {
    const { onHandled, onHandlerFailed, onRetry, onParked, onDeadLetter } = this;
    return { onHandled, onHandlerFailed, onRetry, onParked, onDeadLetter };
  }

  /** `[handler, event id, attempt]` of each successful run. */
  runs(): [string, string, number][] {
    return this.handled.map((r) => [r.handler, r.event.id, r.attempt]);
  }

  /** `[handler, event id, attempt, next, reason, message]` of each failed run. */
  failures(): [string, string, number, string, string | undefined, string][] {
    return this.failed.map((f) => [f.handler, f.event.id, f.attempt, f.next, f.reason, f.error.message]);
  }
}

/** A bus whose `subject` handler (sync or async per `path`) sits between two sync handlers. */
async function start(
  transport: TransportName,
  path: HandlerPath,
  setup: { behaviour?: Behaviour; entry?: Omit<HandlerEntryOptions, 'sync' | 'handler'> } = {},
  overrides: CommitbusOptions = {},
): Promise<{ bus: EventBus; hooks: HookLog; rec: Recorder }> {
  const rec = new Recorder();
  const hooks = new HookLog();
  const { bus } = await bed.buses.start({
    events: PIPE_EVENTS,
    handlers: {
      [path.handlingKey]: [
        [rec.handler('before'), true],
        { handler: rec.handler('subject', setup.behaviour), sync: path.sync, ...setup.entry },
        [rec.handler('after'), true],
      ],
    },
    config: fastConfig({
      prefix: bed.prefix,
      name: `${transport}${++buses}`,
      delayedPollMs: 20,
      rulesRefreshMs: 50,
      ...overrides,
    }),
    transport: testTransport(transport),
    ...hooks.options(),
  });
  return { bus, hooks, rec };
}

describe.each(TRANSPORT_NAMES)('%s transport', (transport) => {
  describe.each(HANDLER_PATHS)('$name', (path) => {
    it('success: onHandled once per handler run, with its duration; no other hook', async () => {
      const { bus, hooks } = await start(transport, path, {
        behaviour: () => new Promise((resolve) => setTimeout(resolve, 30)),
      });
      const event = path.create(1);
      await bus.publish(event);
      await bus.whenIdle();
      expect(hooks.runs().sort()).toEqual([
        ['after', event.id, 1],
        ['before', event.id, 1],
        ['subject', event.id, 1],
      ]);
      const subject = hooks.handled.find((r) => r.handler === 'subject');
      expect(subject?.durationMs).toBeGreaterThanOrEqual(25);
      expect(subject?.event).toBeInstanceOf(path.ordered ? PipeKeyed : PipeItem);
      expect(subject?.event.handlingKey).toBe(path.handlingKey);
      expect([hooks.failed, hooks.retries, hooks.parked, hooks.letters]).toEqual([[], [], [], []]);
    });

    it('retry then success: onHandlerFailed (next: retry) and onRetry once, then onHandled for attempt 2', async () => {
      const { bus, hooks } = await start(transport, path, {
        entry: { attempts: 3, backoff: { type: 'fixed', delayMs: 30, jitter: 0 } },
        behaviour: (_e, ctx) => {
          if (ctx.attempt === 1) throw new Error('flaky');
        },
      });
      const event = path.create(1);
      await bus.publish(event);
      await bus.whenIdle();
      expect(hooks.failures()).toEqual([['subject', event.id, 1, 'retry', undefined, 'flaky']]);
      expect(
        hooks.retries.map((r) => [r.handler, r.event.id, r.attempt, r.delayMs, r.error.message]),
      ).toEqual([['subject', event.id, 1, 30, 'flaky']]);
      expect(hooks.runs().filter(([h]) => h === 'subject')).toEqual([['subject', event.id, 2]]);
      expect(hooks.runs().filter(([h]) => h !== 'subject')).toHaveLength(2);
      expect([hooks.parked, hooks.letters]).toEqual([[], []]);
    });

    it('give up: the last failure says dead-letter (or halt); onDeadLetter once when stored, or when an operator skips the halted key', async () => {
      const { bus, hooks } = await start(transport, path, {
        entry: { attempts: 2 },
        behaviour: (_e, ctx) => {
          throw new Error(`down on attempt ${ctx.attempt}`);
        },
      });
      const event = path.create(1);
      await bus.publish(event);
      await bus.whenIdle();
      const last = path.ordered ? 'halt' : 'dead-letter';
      expect(hooks.failures()).toEqual([
        ['subject', event.id, 1, 'retry', undefined, 'down on attempt 1'],
        ['subject', event.id, 2, last, 'exhausted', 'down on attempt 2'],
      ]);
      expect(hooks.retries).toHaveLength(1);
      if (path.ordered) {
        expect(hooks.letters).toEqual([]);
        expect(await bus.ordering.skip(`pipe:${event.n}`)).toBe(1);
        await waitFor('the skipped run to be kept as a dead letter', () => hooks.letters.length === 1);
        await bus.whenIdle();
      }
      expect(hooks.letters.map((l) => [l.kind, l.handler, l.reason, l.eventId])).toEqual([
        ['handler', 'subject', 'exhausted', event.id],
      ]);
      expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual([hooks.letters[0]?.id]);
    });

    it('pause: onParked once while paused (a held lane too, however often it looks again), then onHandled after resume', async () => {
      const { bus, hooks, rec } = await start(transport, path);
      await bus.rules.pause({ handler: 'subject' });
      const event = path.create(1);
      await bus.publish(event);
      await waitFor('the paused run to be reported', () => hooks.parked.length === 1);
      // From now, every rules reload (which releases what is no longer paused) and every look of a held lane.
      const reloads = vi.spyOn(SchedulingGate.prototype, 'refresh');
      const verdicts = vi.spyOn(SchedulingGate.prototype, 'verdict');
      const heldLooks = () =>
        verdicts.mock.calls.filter(
          ([handler], i) => handler === 'subject' && verdicts.mock.results[i]?.value === 'pause',
        ).length;
      try {
        // A held lane looks again every rulesRefreshMs (50), as the rules reload: let both happen several times.
        await waitFor(
          'four reloads, and four looks of a held lane',
          () => reloads.mock.calls.length >= 4 && (!path.ordered || heldLooks() >= 4),
        );
      } finally {
        reloads.mockRestore();
        verdicts.mockRestore();
      }
      expect(hooks.parked.map((p) => [p.handler, p.event.id, p.attempt])).toEqual([['subject', event.id, 1]]);
      expect(rec.count('subject')).toBe(0);
      await bus.rules.resume({ handler: 'subject' });
      await waitFor('subject to run after resume', () => rec.count('subject') === 1);
      await bus.whenIdle();
      expect(hooks.parked).toHaveLength(1);
      expect(hooks.runs().filter(([h]) => h === 'subject')).toEqual([['subject', event.id, 1]]);
      expect([hooks.failed, hooks.retries, hooks.letters]).toEqual([[], [], []]);
    });
  });

  it('an undecodable payload: onDeadLetter once (kind undecodable), no handler hook for it', async () => {
    const hooks = new HookLog();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: { 'PIPE.ITEM': [[new Recorder().handler('sync'), true]] },
      config: fastConfig({ prefix: bed.prefix, name: `${transport}${++buses}` }),
      transport: testTransport(transport),
      ...hooks.options(),
    });
    // A well-formed envelope of a class no process of this bus registered.
    const event = { id: 'evt-gone', createdAt: new Date().toISOString(), n: 1 };
    const payload = JSON.stringify({ v: 1, key: 'PIPE.GONE', event });
    // Appended the way a foreign publisher would, beside a good event (its publish starts a drain).
    const good = PipeItem.create({ n: 1 });
    await bus.publish(good);
    if (bus.transport instanceof SqlTransport) {
      await bus.transport.publish([{ id: 'raw-1', payload }]);
    } else {
      await bed.redis.xadd(queueNamesOf(bus.config).stream, '*', 'p', payload);
    }
    await bus.startWorker({ handleSignals: false });
    await waitFor('the dead letter to be reported', () => hooks.letters.length === 1);
    await bus.whenIdle();
    expect(hooks.letters.map((l) => [l.kind, l.handler, l.reason, l.eventId])).toEqual([
      ['undecodable', undefined, 'unknown-event-type', 'evt-gone'],
    ]);
    expect(hooks.runs()).toEqual([['sync', good.id, 1]]);
    expect([hooks.failed, hooks.retries]).toEqual([[], []]);
  });

  it('work delivered past maxDeliveries: onDeadLetter (crashed) for each handler of the chain, no onHandlerFailed', async () => {
    const path = HANDLER_PATHS[0] as HandlerPath;
    const rec = new Recorder();
    const hooks = new HookLog();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: {
        'PIPE.ITEM': [
          [rec.handler('first'), true],
          [rec.handler('second'), true],
        ],
      },
      config: fastConfig({
        prefix: bed.prefix,
        name: `${transport}${++buses}`,
        maxDeliveries: 1,
        claimStaleAfterMs: 100,
      }),
      transport: testTransport(transport),
      ...hooks.options(),
    });
    const event = path.create(1);
    await bus.publish(event);
    // A drain that read it and died: the worker's drain takes it over, its second delivery.
    expect(await bus.transport.log.read('dead-drain', 10, 1)).toHaveLength(1);
    await bus.startWorker({ handleSignals: false });
    await waitFor('both dead letters to be reported', () => hooks.letters.length === 2);
    await bus.whenIdle();
    expect(hooks.letters.map((l) => [l.kind, l.handler, l.reason, l.eventId])).toEqual([
      ['handler', 'first', 'crashed', event.id],
      ['handler', 'second', 'crashed', event.id],
    ]);
    expect(rec.runs).toEqual([]);
    expect([hooks.handled, hooks.failed, hooks.retries]).toEqual([[], [], []]);
  });

  it('a hook that throws, and one that rejects, are logged; the run, the other hooks and the dead letter are unchanged', async () => {
    const errors: string[] = [];
    const logger: Logger = { ...silentLogger, error: (_f, message) => void errors.push(message) };
    const hooks = new HookLog();
    const rec = new Recorder();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: {
        'PIPE.ITEM': [
          [rec.handler('ok'), true],
          { handler: rec.handler('bad', () => Promise.reject(new Error('no'))), sync: true, attempts: 1 },
        ],
      },
      config: fastConfig({ prefix: bed.prefix, name: `${transport}${++buses}` }),
      transport: testTransport(transport),
      logger,
      onHandled: () => {
        throw new Error('hook broke');
      },
      onDeadLetter: async () => {
        throw new Error('async hook broke');
      },
    });
    const remove = bus.observe(hooks);
    await bus.startWorker({ handleSignals: false });
    const event = PipeItem.create({ n: 1 });
    await bus.publish(event);
    await bus.whenIdle();
    await waitFor(
      'both hook failures to be logged',
      () => errors.filter((m) => m.includes('threw')).length === 2,
    );
    expect(errors.filter((m) => m.includes('threw')).sort()).toEqual([
      'onDeadLetter threw; what it observed went on unchanged',
      'onHandled threw; what it observed went on unchanged',
    ]);
    expect(rec.order(event.id)).toEqual(['ok', 'bad']);
    expect(hooks.runs()).toEqual([['ok', event.id, 1]]);
    expect(hooks.letters.map((l) => l.id)).toEqual([`${event.id}.bad`]);
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual([`${event.id}.bad`]);
    // A removed observer hears nothing more.
    remove();
    await bus.publish(PipeItem.create({ n: 2 }));
    await bus.whenIdle();
    expect(hooks.handled).toHaveLength(1);
    expect(rec.count('ok')).toBe(2);
  });
});

describe('a drain', () => {
  it('reports an event it could not hand on (undeliverable) and a job the transport refused, once each', async () => {
    const hooks = new HookLog();
    const observer = new ObserverSet(silentLogger);
    observer.add(hooks);
    const rec = new Recorder();
    const bus = bed.buses.create({
      events: PIPE_EVENTS,
      handlers: { 'PIPE.ITEM': [[rec.handler('sync'), true], rec.handler('async')] },
      transport: testTransport('sqlite'),
    });
    const pipeline = busPipeline(bus, observer);
    const [refused, broken] = [PipeItem.create({ n: 1 }), PipeItem.create({ n: 2 })];
    // The drain fails on `broken` alone (as a broken rule store would make it).
    class BreakingDispatcher extends Dispatcher {
      override drainOne(payload: string, deliveries?: number) {
        if (payload.includes(broken.id)) return Promise.reject(new Error('the gate broke'));
        return super.drainOne(payload, deliveries);
      }
    }
    const { log, deadLetters } = embeddedTransport();
    await log.append([refused, broken].map((e) => ({ id: e.id, payload: bus.encode(e).payload })));
    const result = await runDrain({
      log,
      dispatcher: new BreakingDispatcher(pipeline),
      enqueue: async () => {
        throw new Error('job refused by the queue');
      },
      deadLetters,
      limits: { maxEvents: 2, ttlMs: 5_000, batchSize: 10, blockMs: 10, claimStaleAfterMs: 60_000 },
      consumer: 'c',
      stopping: () => false,
      solo: new SoloGate(),
    });
    expect(result.handled).toBe(2);
    expect(hooks.letters.map((l) => [l.kind, l.handler, l.reason, l.eventId]).sort()).toEqual([
      ['event', undefined, 'undeliverable', broken.id],
      ['handler', 'async', 'undeliverable', refused.id],
    ]);
    expect((await deadLetters.list()).map((l) => l.id).sort()).toEqual(hooks.letters.map((l) => l.id).sort());
    expect(hooks.runs()).toEqual([['sync', refused.id, 1]]);
  });
});
