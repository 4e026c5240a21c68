/**
 * The history flush while its own Redis server goes away (a server of this
 * file's own, killed and started again): the worker keeps running, what it
 * counted meanwhile is kept, the failure is logged with its code, and the counts are stored once Redis is back, once each.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineHandler, type EventBus, type EventHandlersConfig } from '../../src/index.js';
import { HISTORY_FLUSH_FAILED } from '../../src/metrics/history-recorder.js';
import { redisTransport } from '../../src/transports/redis/index.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { OwnRedis } from '../helpers/own-redis.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { testPrefix } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait-for.js';

let redis: OwnRedis;
const buses = new Buses();
beforeAll(async () => {
  redis = await OwnRedis.start();
});
afterEach(() => buses.closeAll());
afterAll(() => redis.stop());

async function handled(bus: EventBus): Promise<number> {
  return (await bus.history({ sinceMs: 600_000 })).reduce((sum, p) => sum + p.handled, 0);
}

describe('the history flush while Redis goes away', () => {
  it('keeps the counts, logs the failure with its code, and stores them once when Redis is back', {
    timeout: 60_000,
  }, async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ran: string[] = [];
    const started: string[] = [];
    const slow = defineHandler<RecordCreated>('outage.slow', async (event) => {
      started.push(event.recid);
      if (event.recid.startsWith('during')) await gate;
      ran.push(event.recid);
    });
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [{ handler: slow, attempts: 1 }] };
    const logger = recordingLogger();
    const config = fastConfig({
      prefix: testPrefix('history-outage'),
      redisUrl: redis.url,
      history: { flushEveryMs: 20 },
    });
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      config,
      transport: redisTransport(),
      logger,
    });
    await bus.publish(recordCreated('before'));
    await waitFor('the first run stored', async () => (await handled(bus)) === 1);

    await bus.publish(recordCreated('during'));
    await waitFor('the run to start', () => started.length === 2);
    await redis.stop();
    release();
    await waitFor('the runs during the outage', () => ran.length === 2);
    await waitFor('failed flushes logged', () =>
      logger.lines.some((line) => (line.fields as { code?: string }).code === HISTORY_FLUSH_FAILED),
    );
    await redis.start();
    // The server came back empty (no persistence): the minutes stored now are the ones flushed since.
    await bus.publish(recordCreated('after'));
    await waitFor('the runs after', () => ran.length === 3);
    // The run kept through the outage and the one after, each once (flushes may store them in either order).
    await waitFor('the kept counts stored', async () => (await handled(bus).catch(() => 0)) >= 2);
    expect(await handled(bus)).toBe(2);
    // A later run lands on top of them: nothing kept is stored a second time.
    await bus.publish(recordCreated('later'));
    await waitFor('the later run stored', async () => (await handled(bus)) >= 3);
    expect(await handled(bus)).toBe(3);
  });
});
