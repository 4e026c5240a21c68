/**
 * The Redis history store keeps 24 hours: the record that opens a new minute
 * removes the minutes older than the 1,440 kept, and a read never returns
 * them (the rest of the port's contract:
 * test/conformance/history-store.conformance.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { HISTORY_MINUTES, MINUTE_MS, minuteOf, NO_SAMPLE } from '../../../src/metrics/history-store.js';
import { queueNames } from '../../../src/transports/redis/queue-names.js';
import { RedisHistoryStore } from '../../../src/transports/redis/redis.history-store.js';
import { deleteKeys, openRedis, testPrefix } from '../../helpers/redis.js';

const PREFIX = testPrefix('history-retention');
const redis = openRedis();
afterAll(async () => {
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

describe('RedisHistoryStore retention', () => {
  it('removes the minutes past 24 hours when a minute opens and never reads them', async () => {
    const names = queueNames({ prefix: PREFIX, name: 'bus' });
    const store = new RedisHistoryStore(redis, names, (_action, error) => error as Error);
    const now = minuteOf(Date.now());
    const tooOld = now - HISTORY_MINUTES * MINUTE_MS;
    const oldestKept = now - (HISTORY_MINUTES - 2) * MINUTE_MS;
    await redis.hset(names.history, String(tooOld), '7 0 0 0 0 - -', String(oldestKept), '7 0 0 0 0 3 -');
    expect((await store.read(2 * 86_400_000)).minutes.map((m) => [m.minute.getTime(), m.backlog])).toEqual([
      [oldestKept, 3],
    ]);
    await store.record({ ...NO_SAMPLE, published: 1 });
    const fields = (await redis.hkeys(names.history)).map(Number).sort((a, b) => a - b);
    expect(fields[0]).toBe(oldestKept);
    expect(fields).not.toContain(tooOld);
  });
});
