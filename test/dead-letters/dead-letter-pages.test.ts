/**
 * What only the Redis dead-letter store does: a limited list reads only the
 * ids it needs. Paging through letters on every store is the conformance
 * suite's (test/conformance/dead-letter-store/pages.conformance.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { queueNames, RedisDeadLetterStore } from '../../src/transports/redis/index.js';
import { pageLetters as letters } from '../conformance/dead-letter-store/letters.js';
import { embeddedTransport } from '../helpers/embedded.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';

const { prefix, redis } = redisTestBed('i12cli-pages');

describe('a limited list on the Redis store', () => {
  it('reads only the ids it needs, and lists what the SQL store lists', { timeout: 60_000 }, async () => {
    const store = new RedisDeadLetterStore(redis, queueNames({ prefix, name: 'limited' }));
    const sql = embeddedTransport().deadLetters;
    const all = letters();
    await Promise.all([store.add(all), sql.add(all)]);
    // The real client, counting the ids its sorted-set reads return.
    let idsRead = 0;
    const zrangebyscore = redis.zrangebyscore.bind(redis);
    const counting = new Proxy(redis, {
      get(target, key, receiver) {
        if (key !== 'zrangebyscore') return Reflect.get(target, key, receiver);
        return async (...args: Parameters<typeof zrangebyscore>) => {
          const ids = await zrangebyscore(...args);
          // With WITHSCORES each id comes with its score.
          idsRead += (args as unknown[]).includes('WITHSCORES') ? ids.length / 2 : ids.length;
          return ids;
        };
      },
    });
    const counted = new RedisDeadLetterStore(counting, queueNames({ prefix, name: 'limited' }));
    // Past the 700 letters of one millisecond: the stores may order those ties differently.
    const since = new Date(Date.parse('2026-11-25T10:00:00Z') + 700);
    const filters = [
      { since, limit: 10 },
      { since, handler: 'keep', limit: 50 },
      { since, handler: 'keep' },
    ];
    const read: number[] = [];
    for (const filter of filters) {
      idsRead = 0;
      const listed = await counted.list(filter);
      read.push(idsRead);
      expect(listed).toEqual(await sql.list(filter));
    }
    // `limit` ids when only time selects; a chunk of 500 when a field filter must skip some; all without a limit.
    expect(read).toEqual([10, 500, 600]);
    await store.remove(all.map((l) => l.id));
  });
});
