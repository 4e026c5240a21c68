import { describe, expect, it } from 'vitest';
import { fastConfig } from '../helpers/buses.js';
import { childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { isSettled, redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('shutdown');
const children = childWorkers();

describe('graceful shutdown under load', () => {
  it('SIGTERM stops intake, gives in-flight handlers shutdownTimeoutMs, exits 0; another worker finishes the rest once the locks expire', async () => {
    const name = 'load';
    const countsKey = `{${PREFIX}:${name}}:counts`;
    const pidsKey = `{${PREFIX}:${name}}:pids`;
    const env = {
      PREFIX,
      BUS_NAME: name,
      COUNTS_KEY: countsKey,
      PIDS_KEY: pidsKey,
      ...redisEnv(),
      ASYNC: '1',
      ASYNC_CONCURRENCY: '10',
      LOCK_DURATION_MS: '1000',
    };
    const first = spawnWorker({ ...env, HANDLER_MS: '400', SHUTDOWN_TIMEOUT_MS: '300' });
    children.push(first);
    await first.ready;
    const publisher = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({ prefix: PREFIX, name }),
      transport: testRedis(),
    });
    const events = Array.from({ length: 60 }, (_, i) => recordCreated(`load-${i}`));
    await publisher.publish(events);
    await waitFor(
      'the first worker to finish some handlers',
      async () => (await redis.hlen(countsKey)) >= 10,
    );

    const termAt = Date.now();
    first.process.kill('SIGTERM');
    const exit = await first.exited;
    const stoppedAfterMs = Date.now() - termAt;
    expect(exit).toEqual({ code: 0, signal: null });
    // 300 ms for in-flight handlers (each takes 400), then the connections are cut.
    expect(stoppedAfterMs).toBeLessThan(3_000);
    const doneByFirst = Number(await redis.hget(pidsKey, String(first.pid)));
    expect(doneByFirst).toBeGreaterThanOrEqual(10);
    expect(doneByFirst).toBeLessThan(events.length);

    const second = spawnWorker({ ...env, HANDLER_MS: '5' });
    children.push(second);
    await second.ready;
    await waitFor('every event to be handled', async () => (await redis.hlen(countsKey)) === events.length, {
      timeoutMs: 15_000,
    });
    const counts = await redis.hgetall(countsKey);
    expect(Object.keys(counts).sort()).toEqual(events.map((e) => e.id).sort());
    const runs = Object.values(counts).map(Number);
    expect(Math.min(...runs)).toBe(1);
    // A job whose handler finished but whose completion was cut off runs again: at most the in-flight ones.
    expect(runs.reduce((a, b) => a + b, 0) - events.length).toBeLessThanOrEqual(10);
    expect(Number(await redis.hget(pidsKey, String(second.pid)))).toBe(
      runs.reduce((a, b) => a + b, 0) - doneByFirst,
    );
    await waitFor('Redis to hold no unfinished work', () =>
      isSettled(redis, { redis: { prefix: PREFIX }, name }),
    );
  });
});
