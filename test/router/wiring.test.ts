import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter } from '../../src/bus/start-router.js';
import {
  DeadLetterRedriveError,
  type EventHandlersConfig,
  silentLogger,
  UnitOfWorkManager,
} from '../../src/index.js';
import type { BatchStore } from '../../src/router/batch-store.js';
import { batchDeadLetter } from '../../src/router/delivery/webhook-dead-letter.js';
import { IngestCoalescer } from '../../src/router/ingest-coalescer.js';
import { topicRoute } from '../../src/router/topic-route.js';
import { redisRig } from '../helpers/delivery-rig.js';
import { busConfigs } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { committedRecids, createRecord, RecordCreated, RecordRow } from '../helpers/records.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { subscriberRecord } from '../helpers/router-rig.js';
import { testCertificate } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

// The router connected to the bus: a handler routes committed events to a
// topic with no HTTP hop, startRouter delivers them, and webhook dead letters
// re-drive through bus.deadLetters.
const SCHEMA = 'commitbus_test_router_wiring';
const { prefix: PREFIX, buses } = redisTestBed('router-wiring');
const config = busConfigs(PREFIX);
let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, [RecordRow]);
});
afterAll(() => closeSchema(dataSource));

const toRecords = (store: () => BatchStore) =>
  topicRoute<RecordCreated>({
    name: 'records.to-topic',
    topic: 'records',
    publisher: 'records-service',
    store,
    toMessage: (event) =>
      event.recid === 'private'
        ? undefined
        : { type: 'create', url: `https://records.test/${event.recid}`, data: { recid: event.recid } },
  });

describe('topicRoute: bus events to a router topic, after commit', () => {
  it('delivers committed events as webhooks to the topic subscribers, once each; rolled-back ones and unmapped ones never', async () => {
    const receiver = await startReceiver();
    const { cert } = await testCertificate();
    const busConfig = config('redis', { name: 'route' });
    let store: BatchStore | undefined;
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [toRecords(() => store as BatchStore)] };
    const { bus } = await buses.start({ events: [RecordCreated], handlers, ...busConfig, dataSource });
    store = bus.router.batches;
    // The router runs on the same Redis and prefix, with stores of its own, as another process would.
    const router = await startRouter(
      busConfig.config,
      { roles: ['delivery', 'upkeep'], sender: { ca: cert } },
      { logger: silentLogger, transport: busConfig.transport },
    );
    try {
      await bus.router.subscribers.saveSubscriber(
        subscriberRecord('audit', receiver.url, { topics: ['records'], maxEvents: 10, timeoutMs: 0 }),
      );
      const unitOfWorks = new UnitOfWorkManager({ dataSource, bus });
      await unitOfWorks.run((uow) => createRecord(uow, 'r1'));
      await expect(
        unitOfWorks.run(async (uow) => {
          await createRecord(uow, 'rolled-back');
          throw new Error('the service failed after registering the event');
        }),
      ).rejects.toThrow('the service failed');
      await unitOfWorks.run((uow) => createRecord(uow, 'private'));
      await unitOfWorks.run((uow) => createRecord(uow, 'r2'));
      await bus.whenIdle(10_000);
      await waitFor('both routed events delivered', () => receiver.delivered().length === 2);
      expect(await committedRecids(dataSource)).toEqual(['r1', 'private', 'r2']);
      const delivered = receiver.delivered() as {
        topic: string;
        type: string;
        url: string;
        t: number;
        data: unknown;
      }[];
      expect(delivered.map(({ topic, type, url, data }) => ({ topic, type, url, data }))).toEqual(
        ['r1', 'r2'].map((recid) => ({
          topic: 'records',
          type: 'create',
          url: `https://records.test/${recid}`,
          data: { recid },
        })),
      );
      for (const event of delivered) expect(Number.isInteger(event.t)).toBe(true);
      expect((await bus.router.topics.listTopics()).find((t) => t.name === 'records')).toMatchObject({
        publisher: 'records-service',
        events: 2,
      });
      // Nothing waits: the batches were acked, nothing dead-lettered.
      expect((await bus.router.batches.stats()).audit).toMatchObject({ queued: 0, sent: 2 });
      expect(await bus.deadLetters.list()).toEqual([]);
    } finally {
      await router.close();
      await receiver.close();
    }
  });

  it('dead-letters a routed event at once when another client owns the topic', async () => {
    const busConfig = config('redis', { name: 'owned' });
    let store: BatchStore | undefined;
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [toRecords(() => store as BatchStore)] };
    const { bus } = await buses.start({ events: [RecordCreated], handlers, ...busConfig });
    store = bus.router.batches;
    await bus.router.batches.ingest('someone-else', 'records', [], Date.now());
    const event = RecordCreated.create({ recid: 'r1' });
    await bus.publish(event);
    await bus.whenIdle(5_000);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => ({ handler: l.handler, reason: l.reason, eventId: l.eventId }))).toEqual([
      { handler: 'records.to-topic', reason: 'non-retryable', eventId: event.id },
    ]);
    expect(letters[0]?.error).toContain('owned by client someone-else');
  });

  it('dead-letters a routed event at once when its url passes 2,048 bytes', async () => {
    const busConfig = config('redis', { name: 'long-url' });
    let store: BatchStore | undefined;
    const longUrls = topicRoute<RecordCreated>({
      name: 'records.long-urls',
      topic: 'records',
      publisher: 'records-service',
      store: () => store as BatchStore,
      toMessage: (event) => ({ type: 'create', url: `https://records.test/${event.recid.repeat(2_100)}` }),
    });
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [longUrls] };
    const { bus } = await buses.start({ events: [RecordCreated], handlers, ...busConfig });
    store = bus.router.batches;
    await bus.publish(RecordCreated.create({ recid: 'x' }));
    await bus.whenIdle(5_000);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => ({ handler: l.handler, reason: l.reason }))).toEqual([
      { handler: 'records.long-urls', reason: 'non-retryable' },
    ]);
    expect(letters[0]?.error).toContain('at most 2,048 bytes');
    expect((await bus.router.topics.listTopics()).find((t) => t.name === 'records')).toBeUndefined();
  });

  it('refuses a route with a bad topic or publisher when it is defined', () => {
    const base = { name: 'x', store: () => ({}) as BatchStore, toMessage: () => undefined };
    expect(() => topicRoute({ ...base, topic: 'Records!', publisher: 'svc' })).toThrow(/topic name/);
    expect(() => topicRoute({ ...base, topic: 'records', publisher: 'Svc Name' })).toThrow(/publisher/);
  });
});

describe('webhook dead letters on a bus', () => {
  it('re-drives a given-up batch through bus.deadLetters once the subscriber is fixed', async () => {
    const receiver = await startReceiver(() => 503);
    const { cert } = await testCertificate();
    const { bus } = await buses.start({
      events: [RecordCreated],
      ...config('redis', { name: 'letters' }),
    });
    const router = await startRouter(
      {},
      { roles: ['delivery', 'upkeep'], sender: { ca: cert }, delivery: { maxAttempts: 1 } },
      { logger: silentLogger, stores: bus.router },
    );
    try {
      await bus.router.subscribers.saveSubscriber(
        subscriberRecord('fragile', receiver.url, { topics: ['records'], maxEvents: 5, timeoutMs: 0 }),
      );
      const events = ['a', 'b'].map((n) =>
        JSON.stringify({ topic: 'records', type: 'noop', url: `https://x.test/${n}`, t: 1 }),
      );
      await bus.router.batches.ingest('svc', 'records', events, Date.now());
      await waitFor(
        'the batch given up',
        async () => (await bus.deadLetters.list({ kind: 'webhook' })).length === 1,
      );
      expect((await bus.router.batches.stats()).fragile).toMatchObject({ queued: 0, batches: 0 });
      receiver.behave(() => 204);
      expect(await bus.deadLetters.redrive({ kind: 'webhook' })).toBe(1);
      await waitFor('the re-driven batch delivered', () => receiver.delivered().length === 2);
      expect(receiver.delivered()).toEqual(events.map((e) => JSON.parse(e)));
      expect(await bus.deadLetters.list()).toEqual([]);
    } finally {
      await router.close();
      await receiver.close();
    }
  });
});

describe('re-driving webhook letters one by one', () => {
  it('queues each letter it can and removes it; a letter whose subscriber is gone stays, and a second re-drive duplicates nothing', async () => {
    const bus = buses.create({
      events: [RecordCreated],
      ...config('redis', { name: 'letters-one-by-one' }),
    });
    await bus.router.subscribers.saveSubscriber(
      subscriberRecord('here', 'https://127.0.0.1:1/hook', { topics: ['records'] }),
    );
    const letter = (id: string, subscriber: string) =>
      batchDeadLetter(
        {
          id,
          subscriber,
          events: [JSON.stringify({ topic: 'records', type: 'noop', url: `https://x.test/${id}`, t: 1 })],
          createdAt: 1,
          attempts: 3,
          health: 0,
        },
        'exhausted',
        'HTTP 503',
        new Date(),
      );
    await bus.router.deadLetters.add([letter('b1', 'gone'), letter('b2', 'here')]);
    const first = bus.deadLetters.redrive({ kind: 'webhook' });
    await expect(first).rejects.toBeInstanceOf(DeadLetterRedriveError);
    await expect(first).rejects.toThrow(/webhook\.b1/);
    expect((await bus.deadLetters.list()).map((l) => l.id)).toEqual(['webhook.b1']);
    await expect(bus.deadLetters.redrive({ kind: 'webhook' })).rejects.toBeInstanceOf(DeadLetterRedriveError);
    expect((await bus.router.batches.stats()).here).toMatchObject({ queued: 1, batches: 1 });
  });
});

describe('IngestCoalescer', () => {
  it('merges the publishes of one turn into one ingest per topic, in arrival order, and gives each its outcome', async () => {
    const rig = await redisRig(`${PREFIX}-coalescer`);
    const store = rig.batches;
    try {
      const calls: { topic: string; events: number }[] = [];
      const counting: Pick<BatchStore, 'ingest'> = {
        ingest: (publisher, topic, events, now) => {
          calls.push({ topic, events: events.length });
          return store.ingest(publisher, topic, events, now);
        },
      };
      await rig.subscribers.saveSubscriber(
        subscriberRecord('s', 'https://127.0.0.1:1/hook', {
          topics: ['a', 'b'],
          maxEvents: 100,
          timeoutMs: 60_000,
        }),
      );
      await store.ingest('owner', 'b', [], Date.now());
      const coalescer = new IngestCoalescer(counting, Date.now, 3);
      const results = await Promise.all([
        ...[1, 2, 3, 4].map((i) => coalescer.ingest('me', 'a', `{"i":${i}}`)),
        coalescer.ingest('me', 'b', '{"i":5}'),
      ]);
      expect(calls).toEqual([
        { topic: 'a', events: 3 },
        { topic: 'a', events: 1 },
        { topic: 'b', events: 1 },
      ]);
      expect(results.map((r) => r.ok)).toEqual([true, true, true, true, false]);
      await store.promoteDue(Date.now() + 120_000);
      const [batch] = await store.take({
        worker: 'w',
        limit: 5,
        now: Date.now() + 120_000,
        leaseMs: 1_000,
        maxInFlightPerSubscriber: 5,
      });
      expect(batch?.events).toEqual(['{"i":1}', '{"i":2}', '{"i":3}', '{"i":4}']);
    } finally {
      await rig.close();
    }
  });
});
