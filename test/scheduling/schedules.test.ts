/**
 * `bus.schedule` on every transport: an every-schedule that two buses of one
 * name schedule (two processes, as far as the transport knows) publishes
 * each tick once between them; cron in a time zone; ticks only while a
 * worker of the bus runs, none after its last worker or the bus closes;
 * unschedule and handles; a schedule never claimed starts from its next
 * tick, one that missed ticks catches up the latest only. Then the refusals,
 * before anything runs, and a factory that throws. Tests wait on ticks of
 * another schedule, never on the clock.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  BusClosedError,
  type CommitbusOptions,
  DuplicateScheduleError,
  defineHandler,
  Event,
  type EventBus,
  type EventHandlersConfig,
  EventType,
  ScheduleOptionsError,
  type ScheduleTick,
  type ScheduleWhen,
  type TransportAdapter,
} from '../../src/index.js';
import { sqliteTransport, sqlTransport } from '../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { deleteKeys, ON_CLUSTER, openRedis, testPrefix } from '../helpers/redis.js';
import { sqlTestDatabases } from '../helpers/sql.js';
import { thrownBy } from '../helpers/thrown-by.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('CLOCK.TICK')
class ClockTick extends Event {
  schedule!: string;
  at!: number;
}

/**
 * A transport the tests run on; `shared` when two buses of one name share its
 * data (two processes). The embedded one (SQLite in this process's memory) is
 * a database per bus, so never shared.
 */
interface Setup {
  readonly name: string;
  readonly shared: boolean;
  readonly adapter: () => TransportAdapter;
}

const PREFIX = testPrefix('schedules');
const databases = ON_CLUSTER ? undefined : sqlTestDatabases();
const SETUPS: readonly Setup[] = [
  { name: 'sqlite in memory', shared: false, adapter: () => sqliteTransport({ pollMs: 20 }) },
  { name: ON_CLUSTER ? 'redis cluster' : 'redis', shared: true, adapter: () => testRedis() },
  ...(databases === undefined
    ? []
    : (['postgres', 'sqlite'] as const).map((which) => ({
        name: `sql ${which}`,
        shared: true,
        adapter: () => sqlTransport({ dataSource: databases[which], pollMs: 50 }),
      }))),
];

const buses = new Buses();
afterEach(() => buses.closeAll());
afterAll(async () => {
  const redis = openRedis();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

/** What the schedules of a test made and what the buses' workers handled, by `<schedule>@<tick ms>`. */
class Seen {
  readonly made: string[] = [];
  readonly handled = new Map<string, number>();
  readonly handlers: EventHandlersConfig = {
    'CLOCK.TICK': [
      defineHandler<ClockTick>('clock.seen', (e) => {
        const key = `${e.schedule}@${e.at}`;
        this.handled.set(key, (this.handled.get(key) ?? 0) + 1);
      }),
    ],
  };

  /** The factory every schedule of the test uses. */
  readonly factory = ({ name, at }: ScheduleTick): ClockTick => {
    this.made.push(`${name}@${at.getTime()}`);
    return ClockTick.create({ schedule: name, at: at.getTime() });
  };

  madeOf(schedule: string): number[] {
    return this.made.filter((key) => key.startsWith(`${schedule}@`)).map((key) => Number(key.split('@')[1]));
  }

  handledOf(schedule: string): string[] {
    return [...this.handled.keys()].filter((key) => key.startsWith(`${schedule}@`));
  }
}

let n = 0;

/** Options of a bus named `name` on `setup`, its handlers `seen`'s. */
function options(
  setup: Setup,
  seen: Seen,
  name: string,
  extra: { logger?: ReturnType<typeof recordingLogger> } = {},
) {
  const config: CommitbusOptions = fastConfig({
    name,
    outbox: { enabled: false },
    redis: { prefix: PREFIX },
  });
  return { events: [ClockTick], handlers: seen.handlers, config, transport: setup.adapter(), ...extra };
}

/** Waits until `schedule` has made `more` ticks beyond those made so far. */
async function ticksMore(seen: Seen, schedule: string, more: number): Promise<void> {
  const from = seen.madeOf(schedule).length;
  await waitFor(`${more} more ticks of ${schedule}`, () => seen.madeOf(schedule).length >= from + more);
}

describe.each(SETUPS)('scheduled events on $name', (setup) => {
  it('publishes each tick of an every-schedule once, however many workers schedule it', async () => {
    const seen = new Seen();
    const name = `sched${++n}`;
    const running: EventBus[] = [];
    for (let i = 0; i < (setup.shared ? 2 : 1); i++) {
      const { bus } = await buses.start(options(setup, seen, name));
      bus.schedule('beat', { every: 50 }, seen.factory);
      running.push(bus);
    }
    await waitFor('five ticks to be handled', () => seen.handledOf('beat').length >= 5);
    for (const bus of running) expect(await bus.unschedule('beat')).toBe(true);
    for (const bus of running) await bus.whenIdle();
    const made = seen.madeOf('beat');
    expect(new Set(made).size).toBe(made.length);
    expect(made.every((at) => at % 50 === 0)).toBe(true);
    expect(seen.handledOf('beat').sort()).toEqual(seen.made.slice().sort());
    expect([...seen.handled.values()].every((times) => times === 1)).toBe(true);
  });

  it('ticks a cron schedule in its time zone on whole seconds, once each', async () => {
    const seen = new Seen();
    const name = `sched${++n}`;
    for (let i = 0; i < (setup.shared ? 2 : 1); i++) {
      const { bus } = await buses.start(options(setup, seen, name));
      bus.schedule('second', { cron: '* * * * * *', tz: 'Europe/Paris' }, seen.factory);
    }
    await waitFor('two ticks to be handled', () => seen.handledOf('second').length >= 2);
    const made = seen.madeOf('second');
    expect(new Set(made).size).toBe(made.length);
    expect(made.every((at) => at % 1_000 === 0)).toBe(true);
  });

  it('ticks only while a worker of the bus runs in this process; none after its last worker or the bus closes', async () => {
    const seen = new Seen();
    const name = `sched${++n}`;
    const idle = buses.create(options(setup, seen, name));
    idle.schedule('idle', { every: 50 }, seen.factory);
    const { bus: clock } = await buses.start(options(setup, seen, name));
    clock.schedule('clock', { every: 50 }, seen.factory);
    await ticksMore(seen, 'clock', 3);
    expect(seen.madeOf('idle')).toEqual([]);

    const worker = await idle.startWorker({ handleSignals: false });
    await ticksMore(seen, 'idle', 2);
    await worker.close();
    const afterWorker = seen.madeOf('idle').length;
    await ticksMore(seen, 'clock', 3);
    expect(seen.madeOf('idle')).toHaveLength(afterWorker);

    await idle.startWorker({ handleSignals: false });
    await ticksMore(seen, 'idle', 2);
    await idle.close();
    const afterClose = seen.madeOf('idle').length;
    await ticksMore(seen, 'clock', 3);
    expect(seen.madeOf('idle')).toHaveLength(afterClose);
    expect(() => idle.schedule('late', { every: 50 }, seen.factory)).toThrow(BusClosedError);
  });

  it('stops a schedule by unschedule or its handle, and lets the name be scheduled again', async () => {
    const seen = new Seen();
    const { bus } = await buses.start(options(setup, seen, `sched${++n}`));
    bus.schedule('a', { every: 50 }, seen.factory);
    const b = bus.schedule('b', { every: 50 }, seen.factory);
    await ticksMore(seen, 'a', 2);
    expect(await bus.unschedule('a')).toBe(true);
    expect(await bus.unschedule('a')).toBe(false);
    const aMade = seen.madeOf('a').length;
    await ticksMore(seen, 'b', 3);
    expect(seen.madeOf('a')).toHaveLength(aMade);

    await b.stop();
    const again = bus.schedule('b', { every: 50 }, seen.factory);
    await b.stop(); // the old handle stops nothing now
    await ticksMore(seen, 'b', 2);
    await again.stop();
    expect(await bus.unschedule('b')).toBe(false);
  });

  it('starts a schedule never claimed from its next tick, and catches up only the latest tick one missed', async () => {
    const DAY = 86_400_000;
    const seen = new Seen();
    const { bus } = await buses.start(options(setup, seen, `sched${++n}`));
    const latest = Math.floor(Date.now() / DAY) * DAY;
    expect(await bus.transport.ticks.claim('catch-up', new Date(latest - 3 * DAY))).toBe(true);
    bus.schedule('fresh', { every: DAY }, seen.factory);
    bus.schedule('catch-up', { every: DAY }, seen.factory);
    await waitFor('the missed tick to be handled', () => seen.handledOf('catch-up').length === 1);
    await waitFor(
      'the fresh schedule to store where it starts',
      async () => (await bus.transport.ticks.lastTick('fresh')) !== undefined,
    );
    await bus.whenIdle();
    expect(seen.made).toEqual([`catch-up@${latest}`]);
    expect(await bus.transport.ticks.lastTick('fresh')).toEqual(new Date(latest));
    expect(await bus.transport.ticks.lastTick('catch-up')).toEqual(new Date(latest));
  });
});

describe('scheduling refusals and failures', () => {
  const embedded = SETUPS[0] as Setup;

  it('refuses a bad schedule with a coded error before anything runs, and a duplicate name leaves the first running', async () => {
    const seen = new Seen();
    const { bus } = await buses.start(options(embedded, seen, `sched${++n}`));
    bus.schedule('clock', { every: 50 }, seen.factory);
    const bad: [unknown, string][] = [
      [{ every: 50, jitter: 10 }, "no option 'jitter'"],
      [{ every: 50, cron: '* * * * *' }, 'not both'],
      [{}, 'say when it ticks'],
      [null, 'say when it ticks'],
      [{ every: 5 }, 'at least 10'],
      [{ every: 50.5 }, 'whole number'],
      [{ every: '50' }, 'whole number'],
      [{ every: 50, tz: 'UTC' }, 'tz goes with cron only'],
      [{ cron: 'every minute' }, 'does not parse'],
      [{ cron: '61 * * * *' }, 'does not parse'],
      [{ cron: '' }, 'cron must be a cron expression'],
      [{ cron: '0 * * * *', tz: 'Mars/Olympus' }, 'IANA time zone'],
    ];
    for (const [i, [when, says]] of bad.entries()) {
      const refused = thrownBy(() => bus.schedule(`bad${i}`, when as ScheduleWhen, seen.factory));
      expect(refused).toBeInstanceOf(ScheduleOptionsError);
      expect((refused as ScheduleOptionsError).code).toBe('COMMITBUS_SCHEDULE_OPTIONS');
      expect((refused as Error).message).toContain(says);
    }
    for (const name of ['', 'x'.repeat(256), 42]) {
      expect(() => bus.schedule(name as string, { every: 50 }, seen.factory)).toThrow(/1 to 255 characters/);
    }
    expect(() => bus.schedule('nofactory', { every: 50 }, undefined as never)).toThrow(ScheduleOptionsError);
    const duplicate = thrownBy(() => bus.schedule('clock', { every: 100 }, seen.factory));
    expect(duplicate).toBeInstanceOf(DuplicateScheduleError);
    expect((duplicate as DuplicateScheduleError).code).toBe('COMMITBUS_DUPLICATE_SCHEDULE');

    await ticksMore(seen, 'clock', 3);
    expect(seen.made.every((key) => key.startsWith('clock@'))).toBe(true);
    expect(seen.madeOf('clock').every((at) => at % 50 === 0)).toBe(true);
    for (const name of [...bad.keys()].map((i) => `bad${i}`).concat('nofactory')) {
      expect(await bus.transport.ticks.lastTick(name)).toBeUndefined();
    }
  });

  it('logs a tick whose factory throws or makes no event, and publishes the next ones', async () => {
    const seen = new Seen();
    const logger = recordingLogger();
    const { bus } = await buses.start(options(embedded, seen, `sched${++n}`, { logger }));
    let calls = 0;
    bus.schedule('moody', { every: 50 }, (tick) => {
      calls++;
      if (calls === 1) throw new Error('not now');
      if (calls === 2) return { not: 'an event' } as unknown as Event;
      return seen.factory(tick);
    });
    await waitFor('a tick after the failed ones to be handled', () => seen.handledOf('moody').length >= 1);
    expect(logger.messages('error')).toEqual([
      "the schedule's event factory threw; this tick publishes nothing",
      'a scheduled tick was not published',
    ]);
    expect(logger.at('error')[0]?.fields).toMatchObject({ schedule: 'moody', error: { message: 'not now' } });
  });

  it('tries a tick store that fails again, logging it once, and ticks on once it answers', async () => {
    const seen = new Seen();
    const logger = recordingLogger();
    let failing = 3;
    const flaky: TransportAdapter = {
      name: 'flaky ticks',
      open: (context) => {
        const inner = embedded.adapter().open(context);
        const claim = inner.ticks.claim.bind(inner.ticks);
        return Object.assign(inner, {
          ticks: {
            lastTick: inner.ticks.lastTick.bind(inner.ticks),
            claim: async (name: string, tickAt: Date) => {
              if (failing-- > 0) throw new Error('ticks away');
              return claim(name, tickAt);
            },
          },
        });
      },
    };
    const { bus } = await buses.start({
      ...options(embedded, seen, `sched${++n}`, { logger }),
      transport: flaky,
    });
    bus.schedule('steady', { every: 50 }, seen.factory);
    await waitFor('ticks once the store answers', () => seen.handledOf('steady').length >= 2);
    expect(logger.messages('warn')).toEqual(['schedule steady could not run its tick; it tries again']);
    expect(logger.messages('info')).toContain('schedule steady recovered');
  });
});
