/**
 * `commitbus dead-letters redrive|purge` page through letters by `deadAt`
 * (`forEachDeadLetterPage`): with more letters than a page, many given up in
 * the same millisecond, and some left in the store by the action (letters that
 * could not be re-driven), every letter is handed over exactly once and the
 * paging ends. On both stores, through `DeadLetterFilter.since`/`until`.
 */
import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_PAGE, forEachDeadLetterPage } from '../../src/cli/dead-letter-pages.js';
import { type DeadLetter, handlerDeadLetter } from '../../src/dead-letters/dead-letter.js';
import type { DeadLetterStore } from '../../src/dead-letters/dead-letter-store.js';
import { MemoryDeadLetterStore } from '../../src/transports/memory/index.js';
import { queueNames, RedisDeadLetterStore } from '../../src/transports/redis/index.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';

const { prefix, redis } = redisTestBed('i12cli-pages');

/** 1,300 letters: 700 given up in one millisecond, then 600 one ms apart; handler `keep` for every third. */
function letters(): DeadLetter[] {
  const base = Date.parse('2026-11-25T10:00:00Z');
  return Array.from({ length: 1_300 }, (_, i) =>
    handlerDeadLetter(
      JSON.stringify({ id: `e${i}`, handlingKey: 'RECORD.CREATE' }),
      i % 3 === 0 ? 'keep' : 'go',
      'exhausted',
      [{ attempt: 1, at: new Date(base), error: 'down', name: 'Error' }],
      new Date(i < 700 ? base : base + i),
    ),
  );
}

describe.each<[string, () => DeadLetterStore]>([
  ['memory', () => new MemoryDeadLetterStore()],
  ['Redis', () => new RedisDeadLetterStore(redis, queueNames({ prefix, name: 'pages' }))],
])('dead-letter pages on the %s store', (_name, makeStore) => {
  it('hands every letter over once, though the action leaves a third of them in the store', {
    timeout: 60_000,
  }, async () => {
    const store = makeStore();
    const all = letters();
    await store.add(all);
    const handed: string[] = [];
    let pages = 0;
    const count = await forEachDeadLetterPage(store, {}, async (page) => {
      pages++;
      expect(page.length).toBeLessThanOrEqual(DEAD_LETTER_PAGE);
      handed.push(...page.map((l) => l.id));
      // As a re-drive does: the letters it could run go, the others stay.
      await store.remove(page.filter((l) => l.handler === 'go').map((l) => l.id));
    });
    expect(count).toBe(1_300);
    expect(pages).toBe(3);
    expect(new Set(handed).size).toBe(1_300);
    expect((await store.list()).map((l) => l.handler)).toEqual(
      all.filter((l) => l.handler === 'keep').map(() => 'keep'),
    );
  });

  it('keeps to the filter, its time bounds and its limit', { timeout: 60_000 }, async () => {
    const store = makeStore();
    await store.remove((await store.list()).map((l) => l.id));
    await store.add(letters());
    const since = new Date(Date.parse('2026-11-25T10:00:00Z') + 800);
    const until = new Date(Date.parse('2026-11-25T10:00:00Z') + 1_000);
    const handed: DeadLetter[] = [];
    const count = await forEachDeadLetterPage(store, { handler: 'go', since, until }, async (page) => {
      handed.push(...page);
    });
    // Letters 800..999, of handler `go`: those whose index is not a multiple of 3.
    expect(count).toBe(133);
    expect(handed.every((l) => l.handler === 'go' && l.deadAt >= since && l.deadAt < until)).toBe(true);
    expect(await forEachDeadLetterPage(store, { handler: 'keep', limit: 650 }, async () => {})).toBe(434);
    expect(await forEachDeadLetterPage(store, { limit: 650 }, async () => {})).toBe(650);
  });
});

describe('a limited list on the Redis store', () => {
  it('reads only the ids it needs, and lists what the memory store lists', { timeout: 60_000 }, async () => {
    const store = new RedisDeadLetterStore(redis, queueNames({ prefix, name: 'limited' }));
    const memory = new MemoryDeadLetterStore();
    const all = letters();
    await Promise.all([store.add(all), memory.add(all)]);
    // The real client, counting the ids its sorted-set reads return.
    let idsRead = 0;
    const zrangebyscore = redis.zrangebyscore.bind(redis);
    const counting = new Proxy(redis, {
      get(target, key, receiver) {
        if (key !== 'zrangebyscore') return Reflect.get(target, key, receiver);
        return async (...args: Parameters<typeof zrangebyscore>) => {
          const ids = await zrangebyscore(...args);
          idsRead += ids.length;
          return ids;
        };
      },
    });
    const counted = new RedisDeadLetterStore(counting, queueNames({ prefix, name: 'limited' }));
    // Past the 700 letters of one millisecond: the stores order those ties differently (id, insertion).
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
      expect(listed).toEqual(await memory.list(filter));
    }
    // `limit` ids when only time selects; a chunk of 500 when a field filter must skip some; all without a limit.
    expect(read).toEqual([10, 500, 600]);
    await store.remove(all.map((l) => l.id));
  });
});
