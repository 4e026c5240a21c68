import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidDeliveryOptionsError } from '../../src/events/errors/invalid-delivery-options.error.js';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import {
  type DeliveryOptions,
  type EventBus,
  EventTooLargeError,
  SendEventOp,
  UnitOfWorkManager,
} from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/queue-names.js';
import {
  busConfigs,
  clearOutbox,
  DEAD_PUBLISHER,
  OUTBOX_TEST_EVENTS,
  outboxRows,
  recordingBus,
  tapPublishes,
  timedHandlers,
} from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { Recorder } from '../helpers/recorder.js';
import {
  committedRecids,
  createRecord,
  RecordCreated,
  RecordRow,
  RecordUpdated,
} from '../helpers/records.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import type { TransportName } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

// What the transports do with what the outbox hands them: drop ids seen within
// dedupeWindowMs, hold delayed events back, refuse events over maxEventBytes.
const SCHEMA = 'commitbus_test_outbox_delivery';
const { prefix: PREFIX, redis, buses } = redisTestBed('outbox-delivery');
const TRANSPORTS: TransportName[] = ['redis', 'sqlite'];
const config = busConfigs(PREFIX);
let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, [RecordRow]);
});
beforeEach(async () => {
  await dataSource.getRepository(RecordRow).clear();
  await clearOutbox(dataSource);
});
afterAll(() => closeSchema(dataSource));

/** Redis key of a bus's delayed set. */
const delayedKey = (bus: EventBus) => queueNamesOf(bus.config).delayed;

describe.each(TRANSPORTS)('dedupe of event ids on the %s transport', (kind) => {
  it('an id published again within dedupeWindowMs is dropped; after the window it is accepted again', async () => {
    const window = 400;
    const rec = new Recorder();
    const { bus } = await buses.start({
      events: OUTBOX_TEST_EVENTS,
      handlers: { RECORD: [[rec.handler('dedupe.count'), true]] },
      ...config(kind, { dedupeWindowMs: window, outboxGraceMs: 100, outboxRelayEveryMs: 100 }),
    });
    const event = RecordCreated.create({ recid: 'twice' });
    const firstAt = Date.now();
    await bus.publish(event);
    await bus.publish(event);
    await bus.publish([event, event]);
    await bus.whenIdle();
    expect(rec.count('dedupe.count', event.id)).toBe(1);
    if (kind === 'redis') {
      const ttl = await redis.pttl(`${queueNamesOf(bus.config).seen}${event.id}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(window);
    }

    const { id, payload } = bus.encode(event);
    let acceptedBy = 0;
    await waitFor(
      'the id to be accepted again',
      async () => {
        const { appended } = await bus.transport.publish([{ id, payload }]);
        acceptedBy = Date.now();
        return appended === 1;
      },
      { intervalMs: 10 },
    );
    expect(acceptedBy - firstAt).toBeGreaterThanOrEqual(window);
    await bus.whenIdle();
    expect(rec.count('dedupe.count', event.id)).toBe(2);
  });

  it('a relay republishing an outbox row that was already published (its delete was lost) is dropped', async () => {
    const rec = new Recorder();
    const bus = buses.create({
      events: OUTBOX_TEST_EVENTS,
      handlers: { RECORD: [[rec.handler('dedupe.relayed'), true]] },
      dataSource,
      ...config(kind, { outboxGraceMs: 50, outboxRelayEveryMs: 20 }),
    });
    const publishes = tapPublishes(bus.transport);
    await bus.startWorker({ handleSignals: false });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    const event = await uows.run((uow) => createRecord(uow, 'once'));
    await bus.outbox?.flush();
    expect(await outboxRows(dataSource)).toEqual([]);

    // As if the process had crashed between publishing and deleting the row.
    const { payload } = bus.encode(event);
    await bus.outbox?.write(dataSource.manager, [{ id: event.id, handlingKey: event.handlingKey, payload }]);
    await waitFor('the relay to take the row', async () => (await outboxRows(dataSource)).length === 0);
    await bus.whenIdle();

    expect(rec.count('dedupe.relayed', event.id)).toBe(1);
    expect(publishes.map((p) => [p.ids, p.result])).toEqual([
      [[event.id], { appended: 1, delayed: 0, dropped: 0 }],
      [[event.id], { appended: 0, delayed: 0, dropped: 1 }],
    ]);
  });
});

describe.each(TRANSPORTS)('delayed events on the %s transport', (kind) => {
  it('SendEventOp { delay } and { delayUntil } and bus.publish { delay } are handled no earlier than due, in due order, once', async () => {
    const rec = new Recorder();
    const handledAt = new Map<string, number>();
    const bus = buses.create({
      events: OUTBOX_TEST_EVENTS,
      handlers: timedHandlers(rec, handledAt),
      dataSource,
      ...config(kind),
    });
    const publishes = tapPublishes(bus.transport);
    await bus.startWorker({ handleSignals: false });
    const uows = new UnitOfWorkManager({ dataSource, bus });

    const now = RecordCreated.create({ recid: 'now' });
    const delayed = RecordUpdated.create({ recid: 'delay' });
    const until = RecordUpdated.create({ recid: 'until' });
    const published = RecordUpdated.create({ recid: 'published' });
    const startedAt = Date.now();
    const dueUntil = new Date(startedAt + 1_000);
    await uows.run(async (uow) => {
      uow.register(new SendEventOp(delayed, { delay: 700 }));
      uow.register(new SendEventOp(now));
      uow.register(new SendEventOp(until, { delayUntil: dueUntil }));
    });
    await bus.publish(published, { delay: 800 });
    expect(await bus.transport.log.delayed()).toBe(3);
    if (kind === 'redis') expect(await redis.zcard(delayedKey(bus))).toBe(3);

    const due = new Map(publishes.flatMap((p) => p.ids.map((id, i) => [id, p.deliverAt[i]] as const)));
    expect(due.get(now.id)).toBeUndefined();
    expect(due.get(until.id)).toBe(dueUntil.getTime());
    expect(due.get(delayed.id)).toBeGreaterThanOrEqual(startedAt + 700);
    expect(due.get(published.id)).toBeGreaterThanOrEqual(startedAt + 800);

    await waitFor('all four events to be handled', () => handledAt.size === 4, { timeoutMs: 5_000 });
    await bus.whenIdle();
    for (const event of [delayed, until, published]) {
      expect(handledAt.get(event.id), event.recid).toBeGreaterThanOrEqual(due.get(event.id) ?? Number.NaN);
    }
    expect(handledAt.get(now.id)).toBeLessThan(due.get(delayed.id) ?? Number.NaN);
    const byDue = [delayed, until, published].sort((a, b) => (due.get(a.id) ?? 0) - (due.get(b.id) ?? 0));
    expect(rec.runs.map((r) => r.eventId)).toEqual([now.id, ...byDue.map((e) => e.id)]);
    expect(await bus.transport.log.delayed()).toBe(0);
    if (kind === 'redis') expect(await redis.exists(delayedKey(bus))).toBe(0);
  });
});

describe('delayed events and the outbox', () => {
  it('a delayed event relayed from the outbox keeps its delivery time', async () => {
    const dead = recordingBus(buses, dataSource, Number.POSITIVE_INFINITY, {
      ...DEAD_PUBLISHER,
    });
    const event = RecordUpdated.create({ recid: 'later' });
    await dead.uows.run(async (uow) => uow.register(new SendEventOp(event, { delay: 1_500 })));
    await dead.bus.close();
    const [row] = await outboxRows(dataSource);
    const due = row?.deliverAt ?? Number.NaN;
    expect(due).toBeGreaterThan(Date.now());

    const rec = new Recorder();
    const handledAt = new Map<string, number>();
    const relay = buses.create({
      events: OUTBOX_TEST_EVENTS,
      handlers: timedHandlers(rec, handledAt),
      dataSource,
      ...config('redis', { outboxGraceMs: 50, outboxRelayEveryMs: 20 }),
    });
    const publishes = tapPublishes(relay.transport);
    await relay.startWorker({ handleSignals: false });
    await waitFor('the relay to publish the row', () => publishes.length === 1);
    expect(publishes[0]).toMatchObject({
      ids: [event.id],
      deliverAt: [due],
      result: { appended: 0, delayed: 1, dropped: 0 },
    });
    expect(publishes[0]?.at).toBeLessThan(due);
    expect(await redis.zrange(delayedKey(relay), 0, -1, 'WITHSCORES')).toEqual([row?.payload, String(due)]);

    await waitFor('the event to be handled', () => handledAt.has(event.id), { timeoutMs: 5_000 });
    await relay.whenIdle();
    expect(handledAt.get(event.id)).toBeGreaterThanOrEqual(due);
    expect(rec.runs).toHaveLength(1);
    expect(await redis.exists(delayedKey(relay))).toBe(0);
    expect(await outboxRows(dataSource)).toEqual([]);
  });

  it('invalid delivery options throw InvalidDeliveryOptionsError at register and at publish; nothing is published', async () => {
    const { transport, bus, uows } = recordingBus(buses, dataSource);
    const event = RecordCreated.create({ recid: 'x' });
    const invalid: [DeliveryOptions, RegExp][] = [
      [{ delay: -1 }, /^delay must be a number of milliseconds >= 0, got -1$/],
      [{ delay: Number.NaN }, /got NaN/],
      [{ delay: Number.POSITIVE_INFINITY }, /got Infinity/],
      [{ delay: '5' as unknown as number }, /got 5/],
      [{ delay: 10, delayUntil: new Date() }, /^give either delay or delayUntil, not both$/],
      [{ delayUntil: new Date('not a date') }, /^delayUntil must be a valid Date, got Invalid Date$/],
      [{ delayUntil: Date.now() as unknown as Date }, /delayUntil must be a valid Date/],
    ];
    await uows.run(async (uow) => {
      await uow.manager.insert(RecordRow, { recid: 'x' });
      for (const [options, message] of invalid) {
        const register = () => uow.register(new SendEventOp(event, options));
        expect(register).toThrow(InvalidDeliveryOptionsError);
        expect(register).toThrow(message);
      }
    });
    for (const [options, message] of invalid) {
      const publishing = bus.publish(event, options);
      await expect(publishing).rejects.toBeInstanceOf(InvalidDeliveryOptionsError);
      await expect(publishing).rejects.toThrow(message);
    }
    expect(transport.attempts).toBe(0);
    expect(await outboxRows(dataSource)).toEqual([]);
    expect(await committedRecids(dataSource)).toEqual(['x']);
  });
});

describe('maxEventBytes', () => {
  it('an event over the limit is refused at register and at publish with EventTooLargeError; nothing written or published', async () => {
    const serializer = new EventSerializer(new EventRegistry(OUTBOX_TEST_EVENTS));
    const bytes = (e: RecordCreated) => Buffer.byteLength(serializer.serialize(e).payload);
    const fits = RecordCreated.create({ recid: 'x'.repeat(200) });
    const limit = bytes(fits);
    const over = RecordCreated.create({ recid: 'x'.repeat(201) });
    expect(bytes(over)).toBe(limit + 1);
    const { transport, bus, uows } = recordingBus(buses, dataSource, 0, { maxEventBytes: limit });

    let reachedAfterRegister = false;
    const failing = uows.run(async (uow) => {
      await uow.manager.insert(RecordRow, { recid: 'big' });
      uow.register(new SendEventOp(over));
      reachedAfterRegister = true;
    });
    const error = await failing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventTooLargeError);
    expect(error).toMatchObject({
      code: 'COMMITBUS_EVENT_TOO_LARGE',
      handlingKey: 'RECORD.CREATE',
      eventId: over.id,
      bytes: limit + 1,
      limit,
    });
    expect((error as Error).message).toContain(
      `is ${limit + 1} bytes serialized; the limit is ${limit} bytes`,
    );
    expect(reachedAfterRegister).toBe(false);
    expect(await committedRecids(dataSource)).toEqual([]);
    expect(await outboxRows(dataSource)).toEqual([]);

    await expect(bus.publish([fits, over])).rejects.toThrow(EventTooLargeError);
    expect(transport.attempts).toBe(0);

    // Exactly at the limit is fine, both ways.
    const fitsToo = RecordCreated.create({ recid: 'y'.repeat(200) });
    await uows.run(async (uow) => uow.register(new SendEventOp(fits)));
    await bus.publish(fitsToo);
    expect(transport.batches.map((batch) => batch.map((e) => e.id))).toEqual([[fits.id], [fitsToo.id]]);
  });
});
