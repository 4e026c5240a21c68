import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardSnapshot, startDashboard } from '../../../src/dashboard/index.js';
import type { HandlerJob } from '../../../src/handlers/handler-job.js';
import {
  defineHandler,
  Event,
  type EventHandlersConfig,
  EventType,
  TransportUnavailableError,
  UnitOfWorkManager,
} from '../../../src/index.js';
import { redisTransport } from '../../../src/transports/redis/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { OwnRedis } from '../../helpers/own-redis.js';
import { closeSchema, openSchema } from '../../helpers/postgres.js';
import { Recorder } from '../../helpers/recorder.js';
import { committedRecids, createRecord, RecordCreated, RecordRow } from '../../helpers/records.js';
import { testPrefix } from '../../helpers/redis.js';
import { waitFor } from '../../helpers/wait-for.js';

@EventType('TICKET.STEP', { orderBy: (e: TicketStep) => `ticket:${e.ticket}` })
class TicketStep extends Event {
  ticket!: number;
  step!: number;
}

// A Redis server of this file's own, so it can be stopped and started again.
let redis: OwnRedis;
let port: number;
const buses = new Buses();

async function startRedis(): Promise<void> {
  await redis.start();
}

async function stopRedis(): Promise<void> {
  await redis.stop();
}

beforeAll(async () => {
  redis = await OwnRedis.start();
  port = redis.port;
});
afterEach(() => buses.closeAll());
afterAll(() => redis.stop());

describe('Redis going away', () => {
  it('publish fails with a clear error while Redis is down and works again once it is back', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { RECORD: [[rec.handler('outage.count'), true]] };
    const config = fastConfig({
      prefix: testPrefix('outage'),
      redisUrl: `redis://127.0.0.1:${port}`,
    });
    const publisher = buses.create({ events: TEST_EVENTS, handlers, config, transport: redisTransport() });
    const before = recordCreated('before');
    await publisher.publish(before);

    await stopRedis();
    const during = publisher.publish(recordCreated('during'));
    await expect(during).rejects.toBeInstanceOf(TransportUnavailableError);
    await expect(during).rejects.toThrow(
      new RegExp(
        `could not publish 1 event\\(s\\) on Redis at redis://127.0.0.1:${port}: .*Is the server running`,
      ),
    );
    // So a drain tells an outage (its events stay in the stream) from a job Redis refuses (a dead letter).
    const job: HandlerJob = {
      kind: 'async',
      jobId: `${before.id}.outage.count`,
      payload: publisher.encode(before).payload,
      handler: 'outage.count',
      attempts: 1,
      backoff: { type: 'fixed', delayMs: 0 },
      delayMs: 0,
    };
    await expect(publisher.transport.jobs.enqueue([job])).rejects.toThrow(
      new RegExp(`could not enqueue 1 handler job\\(s\\) on Redis at redis://127.0.0.1:${port}: `),
    );
    await expect(publisher.transport.jobs.enqueue([job])).rejects.toBeInstanceOf(TransportUnavailableError);

    await startRedis();
    const after = recordCreated('after');
    await waitFor('the publisher to reconnect', () =>
      publisher.publish(after).then(
        () => true,
        () => false,
      ),
    );
    // The server restarted empty (no persistence): only what was published after it is there.
    await buses.start({ events: TEST_EVENTS, handlers, config, transport: redisTransport() });
    await waitFor(
      'the event published after the restart to be handled',
      () => rec.count('outage.count') === 1,
    );
    expect(rec.runs.map((r) => r.eventId)).toEqual([after.id]);
  });

  it('a unit of work whose publish cannot reach Redis commits and keeps its event in the outbox; the relay publishes it once Redis is back', async () => {
    const schema = 'commitbus_test_outage';
    const dataSource = await openSchema(schema, [RecordRow]);
    let restarted = false;
    try {
      await stopRedis();
      const rec = new Recorder();
      const config = fastConfig({
        prefix: testPrefix('outage-uow'),
        redisUrl: `redis://127.0.0.1:${port}`,
        outboxGraceMs: 50,
        outboxRelayEveryMs: 50,
      });
      const handlers: EventHandlersConfig = { 'RECORD.CREATE': [rec.handler('outage.record')] };
      const publisher = buses.create({
        events: [RecordCreated],
        handlers,
        config,
        transport: redisTransport(),
        dataSource,
      });
      const uows = new UnitOfWorkManager({ dataSource, bus: publisher });
      let eventId = '';
      await uows.run(async (uow) => {
        eventId = (await createRecord(uow, 'kept')).id;
      });
      expect(await committedRecids(dataSource)).toEqual(['kept']);
      const kept = await dataSource.query(`SELECT event_id FROM ${schema}.commitbus_outbox`);
      expect(kept).toEqual([{ event_id: eventId }]);

      await startRedis();
      restarted = true;
      await buses.start({
        events: [RecordCreated],
        handlers,
        config,
        transport: redisTransport(),
        dataSource,
      });
      await waitFor('the relayed event to be handled', () => rec.count('outage.record') === 1);
      expect(rec.runs.map((r) => r.eventId)).toEqual([eventId]);
      await waitFor('the outbox to be empty', async () => (await publisher.outbox?.pending()) === 0);
    } finally {
      await buses.closeAll();
      await closeSchema(dataSource);
      if (!restarted) await startRedis();
    }
  });

  it('a worker handling ordered events rides out a Redis restart and goes on with later events in order', async () => {
    const steps: string[] = [];
    const handlers: EventHandlersConfig = {
      TICKET: [
        [defineHandler<TicketStep>('ticket.step', (e) => void steps.push(`${e.ticket}:${e.step}`)), true],
      ],
    };
    const config = fastConfig({
      prefix: testPrefix('outage-ordered'),
      redisUrl: `redis://127.0.0.1:${port}`,
      delayedPollMs: 50,
    });
    const { bus } = await buses.start({
      events: [TicketStep],
      handlers,
      config,
      transport: redisTransport(),
    });
    await bus.publish([1, 2, 3].map((step) => TicketStep.create({ ticket: 1, step })));
    await waitFor('the first steps', () => steps.length === 3);

    await stopRedis();
    await startRedis();
    // The server restarted empty: the worker's lease and lanes are rebuilt by its next upkeep.
    const publisher = buses.create({ events: [TicketStep], config, transport: redisTransport() });
    await waitFor('the publisher to reconnect', () =>
      publisher.publish(TicketStep.create({ ticket: 2, step: 1 })).then(
        () => true,
        () => false,
      ),
    );
    await publisher.publish([2, 3, 4].map((step) => TicketStep.create({ ticket: 2, step: step })));
    await waitFor('the steps published after the restart', () => steps.length === 7, { timeoutMs: 15_000 });
    expect(steps).toEqual(['1:1', '1:2', '1:3', '2:1', '2:2', '2:3', '2:4']);
  });

  it('publish and status() on a Redis that stopped answering fail with TransportUnavailableError, not wait without end', async () => {
    const config = fastConfig({
      prefix: testPrefix('outage-frozen-publish'),
      redisUrl: redis.url,
    });
    const bus = buses.create({ events: TEST_EVENTS, config, transport: redisTransport() });
    await bus.status();
    redis.freeze();
    try {
      const began = Date.now();
      const [published, status] = await Promise.allSettled([
        bus.publish([recordCreated('frozen-1')]),
        bus.status(),
      ]);
      expect(Date.now() - began).toBeLessThan(20_000);
      for (const outcome of [published, status]) {
        expect(outcome.status).toBe('rejected');
        const error = (outcome as PromiseRejectedResult).reason as Error;
        expect(error).toBeInstanceOf(TransportUnavailableError);
        expect(error.message).toMatch(/did not answer within \d+ ms/);
      }
    } finally {
      redis.thaw();
    }
  }, 40_000);

  it('the dashboard on a Redis that stopped answering renders within its readTimeoutMs, each part saying so', async () => {
    const config = fastConfig({
      prefix: testPrefix('outage-frozen'),
      redisUrl: redis.url,
    });
    const bus = buses.create({ events: TEST_EVENTS, config, transport: redisTransport() });
    await bus.status(); // connected, then the server freezes: commands get no answer, and no error either
    const dashboard = await startDashboard({ bus, bullBoard: false, readTimeoutMs: 200 });
    redis.freeze();
    try {
      const overview = (await (await fetch(`${dashboard.url}/api/overview`)).json()) as DashboardSnapshot;
      const noAnswer = { unavailable: expect.stringMatching(/^no answer within 200 ms\b/) };
      expect(overview).toMatchObject({
        status: noAnswer,
        queues: noAnswer,
        deadLetters: noAnswer,
        halted: noAnswer,
        rules: noAnswer,
      });
      const page = await fetch(`${dashboard.url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('unavailable: no answer within 200 ms');
    } finally {
      redis.thaw();
      await dashboard.close();
    }
  });
});
