/** Writing a dead letter around its store, the way a hand edit or another tool would. */
import type { DeadLetterStore } from '../../../src/dead-letters/dead-letter-store.js';
import { queueNames, RedisDeadLetterStore } from '../../../src/transports/redis/index.js';
import { SqlDeadLetterStore } from '../../../src/transports/sql/sql.dead-letter-store.js';
import type { ConformanceBed } from '../bed.js';
import { LETTERS_BASE } from './letters.js';

/** Stores `json` as it is under `id` of `store` (bus `name`), given up `deadAt` ms after `LETTERS_BASE`. */
export type RawWriter = (
  store: DeadLetterStore,
  name: string,
  id: string,
  deadAt: number,
  json: string,
) => Promise<void>;

/** A {@link RawWriter} for the stores `bed` opens: the Redis store's keys, or the SQL store's table. */
export function rawWriter(bed: ConformanceBed): RawWriter {
  return async (store, name, id, deadAt, json) => {
    const at = LETTERS_BASE + deadAt;
    if (store instanceof RedisDeadLetterStore) {
      const names = queueNames({ prefix: bed.prefix, name });
      await bed.redis.hset(names.deadLetters, id, json);
      await bed.redis.zadd(names.deadLettersByTime, at, id);
      return;
    }
    if (store instanceof SqlDeadLetterStore) {
      await store.db.execute(`INSERT INTO ${store.table} (bus, id, dead_at, data) VALUES (?, ?, ?, ?)`, [
        store.bus,
        id,
        at,
        json,
      ]);
      return;
    }
    throw new Error(`no raw writer for ${store.constructor.name}`);
  };
}
