import type { Redis } from 'ioredis';

/** Deletes every key under `prefix:` and `{prefix:` (a bus's hash-tagged keys) with SCAN, never KEYS; returns how many. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  for (const pattern of [`${prefix}:*`, `{${prefix}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  }
  return deleted;
}
