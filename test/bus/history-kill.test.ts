/**
 * A worker process killed with SIGKILL while it flushes its history every
 * millisecond: the bus's history hash on Redis holds only well-formed
 * minutes (one Lua script adds each flush, whole or not at all), reads back,
 * and counts no more runs than the handler made.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { Buses, fastConfig } from '../helpers/buses.js';
import { childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { deleteKeys, openRedis, REDIS_URL, testPrefix } from '../helpers/redis.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const PREFIX = testPrefix('history-kill');
const NAME = 'history-kill';
const redis = openRedis();
const buses = new Buses();
afterAll(async () => {
  await buses.closeAll();
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

describe('a worker killed mid-flush', () => {
  const children = childWorkers();

  it('leaves the history hash well formed, read back with no more runs than were made', {
    timeout: 60_000,
  }, async () => {
    const counts = `${PREFIX}:counts`;
    const env = {
      PREFIX,
      BUS_NAME: NAME,
      COUNTS_KEY: counts,
      PIDS_KEY: `${PREFIX}:pids`,
      REDIS_URL,
      HISTORY_FLUSH_MS: '1',
      MAX_EVENTS: '5',
      BATCH_SIZE: '5',
    };
    const child = spawnWorker(env);
    children.push(child);
    await child.ready;
    const bus = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({ prefix: PREFIX, name: NAME }),
      transport: testRedis(),
    });
    await bus.publish(Array.from({ length: 400 }, (_, i) => recordCreated(`k${i}`)));
    const runs = async () => Object.values(await redis.hgetall(counts)).reduce((s, v) => s + Number(v), 0);
    await waitFor('some runs', async () => (await runs()) >= 100);
    child.process.kill('SIGKILL');
    await child.exited;

    const hash = await redis.hgetall(queueNames({ prefix: PREFIX, name: NAME }).history);
    expect(Object.keys(hash).length).toBeGreaterThan(0);
    for (const [minute, value] of Object.entries(hash)) {
      expect(minute).toMatch(/^\d+$/);
      expect(value).toMatch(/^\d+ \d+ \d+ \d+ \d+ (\d+|-) (\d+|-)$/);
    }
    const points = await bus.history({ sinceMs: 600_000 });
    const handled = points.reduce((s, p) => s + p.handled, 0);
    expect(handled).toBeGreaterThan(0);
    expect(handled).toBeLessThanOrEqual(await runs());
    // The publisher's own count is stored when it closes, beside what the killed child left.
    await buses.closeAll();
    const reader = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({ prefix: PREFIX, name: NAME }),
      transport: testRedis(),
    });
    const after = await reader.history({ sinceMs: 600_000 });
    expect(after.reduce((s, p) => s + p.published, 0)).toBe(400);
    expect(after.reduce((s, p) => s + p.handled, 0)).toBe(handled);
  });
});
