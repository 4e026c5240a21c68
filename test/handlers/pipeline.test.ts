/**
 * One behaviour on every path. The same cases run against an unordered sync
 * chain, an unordered async handler, and an ordered event's sync and async
 * lanes, on both transports: success, retry then success, give up, a
 * do-not-retry error, a timeout, pause then resume, block, an idempotent
 * re-run and values thrown that are not Errors. Each handler under test
 * (`subject`) sits between two sync handlers (`before`, `after`), so the
 * cases also show what the rest of the event's handlers do. The expectations
 * differ by path only where README's table "What each path does" says so.
 */
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandledEventEntity } from '../../src/idempotency/handled-event.entity.js';
import {
  COMMITBUS_ENTITIES,
  type CommitbusOptions,
  type DeadLetter,
  type EventBus,
  type HandlerContext,
  type HandlerEntryOptions,
  NonRetryableError,
} from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { HANDLER_PATHS, type HandlerPath, PIPE_EVENTS, type PipeItem } from '../helpers/handler-paths.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { Recorder } from '../helpers/recorder.js';
import { failedHandlerJobs } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, type TransportName, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = redisTestBed('pipeline');
let pgSource: DataSource;
let buses = 0;

beforeAll(async () => {
  pgSource = await openSchema('commitbus_test_pipeline', []);
});
afterAll(async () => {
  await closeSchema(pgSource);
});

type Behaviour = (event: PipeItem, ctx: HandlerContext) => void | Promise<void>;

/** One case's bus: `subject` (on the path's side) between sync `before` and `after`. */
interface Setup {
  readonly behaviour?: Behaviour;
  readonly entry?: Omit<HandlerEntryOptions, 'sync' | 'handler'>;
  readonly dataSource?: DataSource;
}

/** What a case gets: its path, a started bus and what the handlers did. */
interface Harness {
  readonly path: HandlerPath;
  readonly transport: TransportName;
  readonly bus: EventBus;
  readonly rec: Recorder;
}

/** The attempt numbers of `handler`'s runs for `eventId`, in order. */
const attempts = (rec: Recorder, handler: string, eventId: string) =>
  rec.runs.filter((r) => r.handler === handler && r.eventId === eventId).map((r) => r.attempt);

/** Nothing waits anywhere: no event, no parked work, no job in BullMQ's failed sets. */
async function expectNothingLeft({ bus, transport }: Harness): Promise<void> {
  expect(await bus.backlog()).toBe(0);
  expect(await bus.rules.parkedCount()).toBe(0);
  if (transport === 'redis') expect(await failedHandlerJobs(bed.redis, bus.config)).toBe(0);
}

/**
 * A handler gave up for `event`: unordered, a dead letter of `reason` with one
 * attempt per run, the event's other handlers run; ordered, the key halts
 * there (its sync lane: `after` waits behind it) and nothing is dead-lettered.
 */
async function expectGivenUp(h: Harness, event: PipeItem, reason: string, runs: number): Promise<void> {
  const { path, bus, rec } = h;
  expect(attempts(rec, 'subject', event.id)).toEqual(Array.from({ length: runs }, (_, i) => i + 1));
  expect(rec.count('before', event.id)).toBe(1);
  if (!path.ordered) {
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.id, l.reason, l.attempts.length])).toEqual([
      [`${event.id}.subject`, reason, runs],
    ]);
    expect(rec.count('after', event.id)).toBe(1);
    await expectNothingLeft(h);
    return;
  }
  expect(await bus.deadLetters.list()).toEqual([]);
  const halted = await bus.ordering.halted();
  expect(halted.map((k) => [k.key, k.lane, k.handler, k.reason, k.attempts])).toEqual([
    [`pipe:${event.n}`, path.sync ? 'sync' : 'async', 'subject', reason, runs],
  ]);
  // A halted sync lane holds the rest of the chain; an async lane halts after the chain is done.
  expect(rec.count('after', event.id)).toBe(path.sync ? 0 : 1);
  expect(await bus.ordering.pending()).toBe(1);
}

/** The handlers of a sync path ran in chain order; `subject` as `subjectRuns` runs. */
function expectChain(h: Harness, event: PipeItem, subjectRuns: number): void {
  const subject = Array.from({ length: subjectRuns }, () => 'subject');
  if (h.path.sync) {
    expect(h.rec.order(event.id)).toEqual(['before', ...subject, 'after']);
  } else {
    expect(h.rec.order(event.id, ['before', 'after'])).toEqual(['before', 'after']);
    expect(h.rec.count('subject', event.id)).toBe(subjectRuns);
  }
}

const CASES: Record<string, { setup?: () => Setup; run: (h: Harness) => Promise<void> }> = {
  'success: each handler runs once, in order, and nothing is left': {
    run: async (h) => {
      const event = h.path.create(1);
      await h.bus.publish(event);
      await h.bus.whenIdle();
      expectChain(h, event, 1);
      expect(attempts(h.rec, 'subject', event.id)).toEqual([1]);
      expect(await h.bus.deadLetters.list()).toEqual([]);
      await expectNothingLeft(h);
    },
  },

  'retry then success: attempt 2 runs after the backoff and the rest follows once': {
    setup: () => ({
      entry: { attempts: 3 },
      behaviour: (_e, ctx) => {
        if (ctx.attempt === 1) throw new Error('flaky');
      },
    }),
    run: async (h) => {
      const event = h.path.create(1);
      await h.bus.publish(event);
      await h.bus.whenIdle();
      expect(attempts(h.rec, 'subject', event.id)).toEqual([1, 2]);
      expectChain(h, event, 2);
      expect(await h.bus.deadLetters.list()).toEqual([]);
      expect(await h.bus.ordering.halted()).toEqual([]);
      await expectNothingLeft(h);
    },
  },

  'fail, pause, resume, give up: the dead letter (or halt) lists every attempt, before and after the pause': {
    setup: () => ({
      entry: { attempts: 3, backoff: { type: 'fixed', delayMs: 400 } },
      behaviour: () => {
        throw new Error('always');
      },
    }),
    run: async (h) => {
      const { bus, rec, path } = h;
      const event = path.create(1);
      await bus.publish(event);
      await waitFor('attempt 1 to fail', () => attempts(rec, 'subject', event.id).length === 1);
      await bus.rules.pause({ handler: 'subject' });
      if (!path.ordered) {
        // The retry comes due while paused: it is parked with its failure so far.
        await waitFor('the retry to be parked', async () => (await bus.rules.parkedCount()) === 1);
      }
      expect(attempts(rec, 'subject', event.id)).toEqual([1]);
      await bus.rules.resume({ handler: 'subject' });
      await waitFor('the last attempt', () => attempts(rec, 'subject', event.id).length === 3);
      await bus.whenIdle();
      await expectGivenUp(h, event, 'exhausted', 3);
    },
  },

  'give up after the last attempt: a dead letter, or the key halts': {
    setup: () => ({
      entry: { attempts: 2 },
      behaviour: (_e, ctx) => {
        throw new Error(`down on attempt ${ctx.attempt}`);
      },
    }),
    run: async (h) => {
      const event = h.path.create(1);
      await h.bus.publish(event);
      await h.bus.whenIdle();
      await expectGivenUp(h, event, 'exhausted', 2);
    },
  },

  'NonRetryableError: one run, given up at once': {
    setup: () => ({
      entry: { attempts: 3 },
      behaviour: () => {
        throw new NonRetryableError('cannot succeed');
      },
    }),
    run: async (h) => {
      const event = h.path.create(1);
      await h.bus.publish(event);
      await h.bus.whenIdle();
      await expectGivenUp(h, event, 'non-retryable', 1);
    },
  },

  'timeout: each run that outlives timeoutMs is a failed attempt, with its signal aborted': {
    setup: () => ({
      entry: { attempts: 2, timeoutMs: 40 },
      behaviour: (_e, ctx) =>
        new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())),
    }),
    run: async (h) => {
      const event = h.path.create(1);
      await h.bus.publish(event);
      await h.bus.whenIdle();
      await expectGivenUp(h, event, 'timeout', 2);
    },
  },

  'pause then resume: nothing runs while paused, then subject once and the rest once': {
    run: async (h) => {
      const { bus, rec, path } = h;
      await bus.rules.pause({ handler: 'subject' });
      const event = path.create(1);
      await bus.publish(event);
      // The sync handlers that do not wait for subject: `before`, and `after` when subject is async.
      await waitFor(
        'the handlers not behind subject to run',
        () => rec.count('before', event.id) === 1 && (path.sync || rec.count('after', event.id) === 1),
      );
      if (!path.ordered) {
        // Unordered work is parked (whenIdle counts it as idle).
        await waitFor('the paused run to be parked', async () => (await bus.rules.parkedCount()) === 1);
      } else {
        // An ordered lane holds where it is: later events of its key must wait.
        expect(await bus.ordering.pending()).toBe(1);
        expect(await bus.rules.parkedCount()).toBe(0);
      }
      expect(rec.count('subject')).toBe(0);
      if (path.sync) expect(rec.count('after', event.id)).toBe(0);
      await bus.rules.resume({ handler: 'subject' });
      await waitFor('the parked work to be released', async () => (await bus.rules.parkedCount()) === 0);
      await bus.whenIdle();
      expectChain(h, event, 1);
      expect(attempts(rec, 'subject', event.id)).toEqual([1]);
      await expectNothingLeft(h);
    },
  },

  'block: subject is dropped and counted, the rest runs once': {
    run: async (h) => {
      const { bus, path } = h;
      await bus.rules.block({ handler: 'subject' });
      const event = path.create(1);
      await bus.publish(event);
      await bus.whenIdle();
      expectChain(h, event, 0);
      expect(await bus.rules.blockedCount('subject')).toBe(1);
      expect(await bus.deadLetters.list()).toEqual([]);
      expect(await bus.ordering.halted()).toEqual([]);
      await expectNothingLeft(h);
    },
  },

  'idempotent re-run: a redelivered event runs the others again and skips subject': {
    setup: () => ({ entry: { idempotent: true } }),
    run: async (h) => {
      const { bus, rec, path } = h;
      const event = path.create(1);
      await bus.publish(event);
      await bus.whenIdle();
      const lane = path.laneOf(event);
      await bus.transport.publish([
        { id: event.id, payload: bus.encode(event).payload, skipDedupe: true, ...(lane ? { lane } : {}) },
      ]);
      await bus.whenIdle();
      expect(rec.count('before', event.id)).toBe(2);
      expect(rec.count('after', event.id)).toBe(2);
      expect(attempts(rec, 'subject', event.id)).toEqual([1]);
      const records = await bus.dataSource?.getRepository(HandledEventEntity).findBy({ eventId: event.id });
      expect(records?.map((r) => r.handler)).toEqual(['subject']);
      await expectNothingLeft(h);
    },
  },

  'values thrown that are not Errors are failures like any other; whenIdle resolves': {
    setup: () => ({
      entry: { attempts: 2 },
      behaviour: (event) => {
        throw THROWN[event.n - 1];
      },
    }),
    run: async (h) => {
      const events = THROWN.map((_, i) => h.path.create(i + 1));
      await h.bus.publish(events);
      await h.bus.whenIdle(20_000);
      for (const event of events) {
        expect(attempts(h.rec, 'subject', event.id)).toEqual([1, 2]);
        expect(h.rec.count('before', event.id)).toBe(1);
      }
      const described = ['undefined', 'null', "'a string'", '{ code: 42 }'];
      if (!h.path.ordered) {
        const letters = await h.bus.deadLetters.list();
        const byId = new Map(letters.map((l) => [l.eventId, l]));
        events.forEach((event, i) => {
          const letter = byId.get(event.id) as DeadLetter;
          expect(letter.reason).toBe('exhausted');
          expect(letter.attempts.map((a) => [a.name, a.code])).toEqual([
            ['ThrownValueError', 'COMMITBUS_THROWN_VALUE'],
            ['ThrownValueError', 'COMMITBUS_THROWN_VALUE'],
          ]);
          expect(letter.error).toContain(`threw ${described[i]}`);
        });
        expect(letters).toHaveLength(THROWN.length);
        await expectNothingLeft(h);
      } else {
        const halted = await h.bus.ordering.halted();
        expect(halted.map((k) => [k.key, k.reason]).sort()).toEqual(
          events.map((e) => [`pipe:${e.n}`, 'exhausted']).sort(),
        );
        for (const [i, event] of events.entries()) {
          expect(halted.find((k) => k.eventId === event.id)?.error).toContain(`threw ${described[i]}`);
        }
      }
    },
  },
};

const THROWN: readonly unknown[] = [undefined, null, 'a string', { code: 42 }];

describe.each(TRANSPORT_NAMES)('%s transport', (transport) => {
  const sqlite = async () => {
    const { DataSource } = await import('typeorm');
    return new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [...COMMITBUS_ENTITIES],
      synchronize: true,
    }).initialize();
  };

  async function start(path: HandlerPath, setup: Setup): Promise<Harness> {
    const rec = new Recorder();
    const config: CommitbusOptions = fastConfig({
      prefix: bed.prefix,
      name: `${transport}${++buses}`,
      delayedPollMs: 20,
      rulesRefreshMs: 50,
      ...(setup.dataSource !== undefined ? { outbox: false } : {}),
    });
    const { bus } = await bed.buses.start({
      events: PIPE_EVENTS,
      handlers: {
        [path.handlingKey]: [
          [rec.handler('before'), true],
          { handler: rec.handler('subject', setup.behaviour), sync: path.sync, ...setup.entry },
          [rec.handler('after'), true],
        ],
      },
      config,
      transport: testTransport(transport),
      ...(setup.dataSource !== undefined ? { dataSource: setup.dataSource } : {}),
    });
    return { path, transport, bus, rec };
  }

  describe.each(HANDLER_PATHS)('$name', (path) => {
    it.each(Object.keys(CASES))('%s', async (name) => {
      const c = CASES[name] as (typeof CASES)[string];
      let setup = c.setup?.() ?? {};
      let own: DataSource | undefined;
      if (setup.entry?.idempotent) {
        // Idempotency records live in the database: PostgreSQL for Redis buses, SQLite in memory.
        own = transport === 'sqlite' ? await sqlite() : undefined;
        setup = { ...setup, dataSource: own ?? pgSource };
      }
      try {
        await c.run(await start(path, setup));
      } finally {
        await bed.buses.closeAll();
        await own?.destroy();
      }
    });
  });
});
