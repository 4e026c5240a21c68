/**
 * Order keys whose lane waits for a position that will never come: Redis
 * lost the lane's state (no AOF) while `commitbus_order_keys` kept counting,
 * or a position was lost. The lane waits the gap wait (`2 × (outbox.graceMs +
 * outbox.relayEveryMs)`), then goes on from the first position it holds, with
 * a warning, `status().rebased` and a metric; `bus.ordering.rebase(key)` does
 * it at once, on purpose.
 */
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CommitbusOptions,
  defineHandler,
  Event,
  type EventBus,
  EventType,
  type Logger,
  OrderingRebaseError,
  SendEventOp,
  UnitOfWorkManager,
  withUnitOfWork,
} from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { OrderKeyRecordEntity } from '../../src/ordering/order-key-record.entity.js';
import { OutboxRecordEntity } from '../../src/outbox/outbox-record.entity.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { fastConfig } from '../helpers/buses.js';
import { openSqlite } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, type TransportName, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('LEDGER.POST', { orderBy: (e: Posted) => `ledger:${e.account}` })
class Posted extends Event {
  account!: string;
  n!: number;
}

const bed = redisTestBed('ordering-rebase');
const SCHEMA = 'commitbus_test_ordering_rebase';
let postgres: DataSource;
let sqlite: DataSource;
let names = 0;

beforeAll(async () => {
  postgres = await openSchema(SCHEMA, []);
  sqlite = await openSqlite([]);
});
afterAll(async () => {
  await closeSchema(postgres);
  await sqlite.destroy();
});

/** The warnings a bus logged about its order keys. */
function warnings(): { logger: Logger; seen: { fields: Record<string, unknown>; message: string }[] } {
  const seen: { fields: Record<string, unknown>; message: string }[] = [];
  const logger: Logger = {
    info: () => {},
    error: () => {},
    // Only the lanes' warnings (not deprecated option names, nor the relay's).
    warn: (fields, message) => {
      if (message.startsWith('order key ')) seen.push({ fields: fields as Record<string, unknown>, message });
    },
  };
  return { logger, seen };
}

/** A bus on `transport` with an outbox (PostgreSQL on Redis, SQLite in memory), recording what its handler saw. */
async function ledgerBus(transport: TransportName, overrides: CommitbusOptions = {}) {
  const dataSource = transport === 'redis' ? postgres : sqlite;
  const seen: { account: string; n: number; seq: number; prev: number | undefined }[] = [];
  const handler = defineHandler<Posted>('ledger.apply', (e) => {
    seen.push({ account: e.account, n: e.n, seq: e.ordering?.seq ?? -1, prev: e.ordering?.prev });
  });
  const { logger, seen: warned } = warnings();
  const config = fastConfig({ prefix: bed.prefix, name: `rb${++names}`, ...overrides });
  const { bus } = await bed.buses.start({
    events: [Posted],
    handlers: { LEDGER: [[handler, true]] },
    dataSource,
    config,
    transport: testTransport(transport),
    logger,
  });
  const uows = new UnitOfWorkManager({ dataSource, bus });
  const post = (account: string, n: number) =>
    withUnitOfWork(uows, async (uow) => {
      uow.register(new SendEventOp(Posted.create({ account, n })));
    });
  const handled = (account: string) => seen.filter((s) => s.account === account).map((s) => s.n);
  return { bus, dataSource, seen, warned, post, handled };
}

/** A position lost for good: the key's counter moves on without an event (a row consumed and never published). */
async function losePosition(dataSource: DataSource, key: string): Promise<void> {
  await dataSource.getRepository(OrderKeyRecordEntity).increment({ orderKey: key }, 'lastPosition', 1);
}

/** An outbox row the relay publishes at once (a publisher left it), for `n` of `account` at `position`. */
async function leftRow(bus: EventBus, dataSource: DataSource, account: string, n: number, position: number) {
  const { id, payload } = bus.encode(Posted.create({ account, n }));
  await dataSource.getRepository(OutboxRecordEntity).insert({
    eventId: id,
    createdAt: 0,
    registrationOrder: 0,
    handlingKey: 'LEDGER.POST',
    payload,
    deliverAt: null,
    orderKey: `ledger:${account}`,
    orderPosition: position,
  });
  // The relay deletes a row only once its event went somewhere: a lane, a drop, a dead letter.
  await waitFor(`the relay to take position ${position}`, async () => (await bus.outbox?.pending()) === 0);
  return id;
}

async function rebasedTotal(bus: EventBus): Promise<number> {
  // The count is read from `bus.status()` at scrape time: metrics built now read the whole of it.
  const metrics = createBusMetrics(bus);
  const families = parsePrometheusText(await metrics.metrics());
  metrics.close();
  return sampleValue(families, 'commitbus_ordered_keys_rebased_total', {});
}

/** Short outbox timers: the gap wait is 2 × (60 + 40) = 200 ms. */
const SHORT_GAP = { outboxGraceMs: 60, outboxRelayEveryMs: 40 };

describe.each(TRANSPORT_NAMES)('a lane waiting for a lost position (%s)', (transport) => {
  it('goes on from the first position it holds after the gap wait, and says so in a warning, status() and a metric', async () => {
    const b = await ledgerBus(transport, SHORT_GAP);
    const account = `gap-${transport}`;
    await b.post(account, 1);
    await waitFor('the first event', () => b.handled(account).length === 1);
    await losePosition(b.dataSource, `ledger:${account}`);
    await b.post(account, 3);
    await b.post(account, 4);

    await waitFor('the events after the lost position', () => b.handled(account).length === 3, {
      describe: () => b.seen,
    });
    expect(b.handled(account)).toEqual([1, 3, 4]);
    const [first, third, fourth] = b.seen.filter((s) => s.account === account);
    // The chain of seq/prev stays whole: a consumer sees no reordering, only the warning says what was skipped.
    expect(third?.prev).toBe(first?.seq);
    expect(fourth?.prev).toBe(third?.seq);
    expect(b.warned).toEqual([
      {
        fields: expect.objectContaining({ key: `ledger:${account}`, from: 2, to: 3, why: 'gap' }),
        message: expect.stringMatching(/position 2 never came; the lane goes on from position 3/),
      },
    ]);
    const status = await b.bus.status();
    expect(status.rebased.count).toBe(1);
    expect(status.rebased.recent).toEqual([
      { key: `ledger:${account}`, from: 2, to: 3, why: 'gap', rebasedAt: expect.any(String) },
    ]);
    expect(await rebasedTotal(b.bus)).toBe(1);
    expect((await b.bus.ordering.rebased()).recent[0]).toMatchObject({
      key: `ledger:${account}`,
      why: 'gap',
    });
  });

  it('keeps an event of a skipped position that arrives after the re-base as a dead letter, and drops a true duplicate', async () => {
    const b = await ledgerBus(transport, SHORT_GAP);
    const account = `skipped-${transport}`;
    const key = `ledger:${account}`;
    const { registry } = createBusMetrics(b.bus); // counting from here
    await b.post(account, 1);
    await waitFor('the first event', () => b.handled(account).length === 1);
    await losePosition(b.dataSource, key);
    await b.post(account, 3);
    await waitFor('the re-base past position 2', () => b.handled(account).length === 2);
    // Done, not only handled, so position 1 is behind the lane.
    await waitFor('the lane to be done', async () => (await b.bus.status()).backlog.ordered === 0);

    // Position 2 comes at last (the relay sends a backlog after an outage): not dropped in silence.
    const lateId = await leftRow(b.bus, b.dataSource, account, 2, 2);
    const letters = await b.bus.deadLetters.list({ reason: 'skipped-by-rebase' });
    expect(letters).toEqual([
      expect.objectContaining({
        kind: 'event',
        eventId: lateId,
        handlingKey: 'LEDGER.POST',
        error: expect.stringMatching(
          /order key ledger:skipped-\w+: position 2 came after the lane was re-based past it \(from position 2 to 3, why gap/,
        ),
      }),
    ]);
    expect(b.warned.at(-1)).toEqual({
      fields: expect.objectContaining({ key, position: 2, eventId: lateId, deadLetter: letters[0]?.id }),
      message: expect.stringMatching(/^order key .*position 2 arrived after the lane was re-based past it/),
    });
    const families = parsePrometheusText(await registry.metrics());
    expect(sampleValue(families, 'commitbus_ordered_late_events_total', { key: 'LEDGER.POST' })).toBe(1);

    // A copy of position 1, handled before the re-base: a true duplicate, dropped as before.
    await leftRow(b.bus, b.dataSource, account, 1, 1);
    expect(await b.bus.deadLetters.list()).toHaveLength(1);

    // Re-driven, it runs its handlers once, outside the lane (no seq: it cannot be in order now).
    expect(await b.bus.deadLetters.redrive(letters[0]?.id as string)).toBe(1);
    await waitFor('the re-driven event', () => b.handled(account).length === 3);
    await b.bus.whenIdle();
    expect(b.handled(account)).toEqual([1, 3, 2]);
    expect(b.seen.at(-1)?.seq).toBe(-1);
    expect(await b.bus.deadLetters.list()).toEqual([]);
  });

  it('waits for a missing position that comes within the gap wait, and does not re-base', async () => {
    // The default gap wait (12 s) outlasts the test.
    const b = await ledgerBus(transport);
    const account = `late-${transport}`;
    const lane = `s|ledger:${account}`;
    const encode = (n: number) => b.bus.encode(Posted.create({ account, n })).payload;
    // Position 2 arrives first (its publisher was quicker), then position 1.
    await b.bus.transport.publish([{ id: `late-2-${transport}`, payload: encode(2), lane, position: 2 }]);
    await waitFor('position 2 to wait', async () => (await b.bus.status()).backlog.ordered === 1);
    await b.bus.transport.publish([{ id: `late-1-${transport}`, payload: encode(1), lane, position: 1 }]);
    await waitFor('both events', () => b.handled(account).length === 2);
    expect(b.handled(account)).toEqual([1, 2]);
    expect((await b.bus.status()).rebased.count).toBe(0);
    expect(b.warned).toEqual([]);
  });

  it('bus.ordering.rebase(key) re-bases a waiting key at once; refuses a key with nothing to go on from', async () => {
    const b = await ledgerBus(transport);
    const account = `op-${transport}`;
    const key = `ledger:${account}`;
    await b.post(account, 1);
    // Done, not only handled: while its step is on the way the lane has it in hand.
    await waitFor(
      'the first event',
      async () => (await b.bus.status()).backlog.ordered === 0 && b.handled(account).length === 1,
    );
    await expect(b.bus.ordering.rebase(key)).rejects.toThrow(OrderingRebaseError);
    await expect(b.bus.ordering.rebase(key)).rejects.toMatchObject({
      code: 'COMMITBUS_ORDERING_REBASE',
      message: expect.stringMatching(/holds no event to go on from/),
    });
    // Back to a position handled already: a republished copy of event 1 would run again.
    await expect(b.bus.ordering.rebase(key, { position: 1 })).rejects.toThrow(
      /position 1 is below position 2, where the lane is/,
    );
    await losePosition(b.dataSource, key);
    await b.post(account, 3);
    await waitFor('the event to wait', async () => (await b.bus.status()).backlog.ordered === 1);
    await expect(b.bus.ordering.rebase(key, { position: 4 })).rejects.toThrow(
      /position 4 would skip the event the lane holds at position 3/,
    );
    expect(b.handled(account)).toEqual([1]);

    expect(await b.bus.ordering.rebase(key)).toMatchObject({ key, from: 2, to: 3, why: 'operator' });
    await waitFor('the event after the re-base', () => b.handled(account).length === 2);
    expect(b.handled(account)).toEqual([1, 3]);
    // The position it skipped, coming now, is late: a dead letter naming the operator's re-base.
    await leftRow(b.bus, b.dataSource, account, 2, 2);
    expect((await b.bus.deadLetters.list())[0]?.error).toMatch(/from position 2 to 3, why operator/);
    expect((await b.bus.status()).rebased.recent[0]).toMatchObject({ key, from: 2, to: 3, why: 'operator' });
    expect(await rebasedTotal(b.bus)).toBe(1);
  });

  it('bus.ordering.rebase(key, { position }) refuses, on a bus without an outbox, a position past the next one it numbers', async () => {
    const handled: number[] = [];
    const handler = defineHandler<Posted>('ledger.count', (e) => {
      handled.push(e.n);
    });
    const config = fastConfig({ prefix: bed.prefix, name: `rb${++names}` });
    const { bus } = await bed.buses.start({
      events: [Posted],
      handlers: { LEDGER: [[handler, true]] },
      config,
      transport: testTransport(transport),
    });
    const key = `ledger:numbered-${transport}`;
    // A key never seen: a position set there would decide how its lane is numbered before its first event.
    await expect(bus.ordering.rebase(key, { position: 1 })).rejects.toThrow(/it has no lane/);
    await bus.publish(Posted.create({ account: `numbered-${transport}`, n: 1 }));
    await waitFor(
      'the first event',
      async () => (await bus.status()).backlog.ordered === 0 && handled.length === 1,
    );
    // Its next event gets position 2: going on from 5 would drop the next three as passed.
    await expect(bus.ordering.rebase(key, { position: 5 })).rejects.toThrow(
      /position 5 is past position 2, the one the key's next event gets/,
    );
    await bus.publish(Posted.create({ account: `numbered-${transport}`, n: 2 }));
    await waitFor('the next event', () => handled.length === 2);
    expect(handled).toEqual([1, 2]);
  });
});

describe('a lane whose state Redis lost', () => {
  it('goes on from the first position it sees, with no prev, and warns that it had no state of its own', async () => {
    const b = await ledgerBus('redis', SHORT_GAP);
    const account = 'lost';
    for (const n of [1, 2]) await b.post(account, n);
    await waitFor('the first events', () => b.handled(account).length === 2);
    // Redis restarted without AOF: the lane's keys are gone; commitbus_order_keys still says 2.
    const prefix = queueNamesOf(b.bus.config).ordering;
    expect(
      await bed.redis.del(`${prefix}l:s|ledger:${account}`, `${prefix}e:s|ledger:${account}`),
    ).toBeGreaterThan(0);
    await b.post(account, 3);
    await b.post(account, 4);

    await waitFor('the events after the loss', () => b.handled(account).length === 4, {
      describe: () => b.seen,
    });
    expect(b.handled(account)).toEqual([1, 2, 3, 4]);
    const [, , third, fourth] = b.seen;
    expect(third?.prev).toBeUndefined();
    expect(fourth?.prev).toBe(third?.seq);
    expect(b.warned).toEqual([
      {
        fields: expect.objectContaining({ key: `ledger:${account}`, from: 1, to: 3, why: 'no-state' }),
        message: expect.stringMatching(/had no state of its own \(Redis lost its data\?\)/),
      },
    ]);
    expect((await b.bus.status()).rebased).toMatchObject({
      count: 1,
      recent: [{ why: 'no-state', from: 1, to: 3 }],
    });
  });
});
