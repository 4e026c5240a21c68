/**
 * The ordering store adapters as the invariants model (invariants-model.ts)
 * drives them: on Redis under a test file's own prefix, on the SQL
 * transport's tables (PostgreSQL and SQLite) of a test file's own databases.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { RedisOrderingStore } from '../../src/transports/redis/redis.ordering-store.js';
import { RedisStreamEventLog } from '../../src/transports/redis/redis-stream.event-log.js';
import { SqlEventLog } from '../../src/transports/sql/sql.event-log.js';
import { SqlOrderingStore } from '../../src/transports/sql/sql.ordering-store.js';
import { SqlDb } from '../../src/transports/sql/sql-db.js';
import { openSqlWakeups } from '../../src/transports/sql/sql-notifications.js';
import type { SqlWakeups } from '../../src/transports/sql/sql-wakeups.js';
import { type Harness, publishThrough, toSnapshot } from '../conformance/ordering-store/harness.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';
import { sqlTestDatabases } from '../helpers/sql.js';

/**
 * Opens Redis for a test file (a fresh prefix `cb-test-<name>-<8 hex>`, a
 * connection and one for blocking pops, closed and the keys deleted after the
 * file) and returns what makes a fresh `RedisOrderingStore` harness under it,
 * each on names of its own. Call it once, at the top of the file.
 */
export function redisHarnesses(name: string): () => Harness {
  const PREFIX = testPrefix(name);
  const redis = openRedis();
  const blocking = openRedis();
  afterAll(async () => {
    await deleteKeys(redis, PREFIX);
    await Promise.all([redis.quit(), blocking.quit()]);
  });
  let harnesses = 0;
  return () => {
    const names = queueNames({ prefix: PREFIX, name: `h${++harnesses}` });
    const P = names.ordering;
    const store = new RedisOrderingStore(redis, P, blocking);
    return {
      store,
      publish: publishThrough(new RedisStreamEventLog(redis, names, 60_000)),
      snapshot: async (lanes, workers) => toSnapshot(await store.inspect(lanes, workers)),
      pass: (ms) => sleep(ms),
      // A worker crashing inside waitAndClaim, between its two Redis calls: not a port operation.
      popOnly: (worker) => blocking.blmove(`${P}ready`, `${P}w:${worker}`, 'RIGHT', 'LEFT', 0.01),
    };
  };
}

/**
 * Sets up the SQL databases of a test file (see `sqlTestDatabases`; call it
 * once, at the top of the file) and returns what makes a fresh
 * `SqlOrderingStore` harness on `which` of them, each on a bus of its own,
 * publishing through the SQL event log as the transport does.
 */
export function sqlHarnesses(): (which: 'postgres' | 'sqlite') => Harness {
  const databases = sqlTestDatabases();
  const wakeups: SqlWakeups[] = [];
  afterAll(async () => {
    await Promise.all(wakeups.splice(0).map((w) => w.close()));
  });
  let harnesses = 0;
  return (which) => {
    const db = new SqlDb(databases[which]);
    const bus = `h${++harnesses}`;
    const wake = openSqlWakeups(db, bus, silentLogger);
    wakeups.push(wake);
    const store = new SqlOrderingStore(db, bus, { gapWaitMs: 0, wakeups: wake, pollMs: 50 });
    const log = new SqlEventLog(db, bus, {
      dedupeWindowMs: 60_000,
      wakeups: wake,
      lanes: (tx, events) => store.openLanes(tx, events),
    });
    return {
      store,
      publish: publishThrough(log),
      snapshot: async (lanes, workers) => toSnapshot(await store.inspect(lanes, workers)),
      pass: (ms) => sleep(ms),
    };
  };
}
