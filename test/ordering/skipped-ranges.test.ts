/**
 * The positions a lane's re-bases skipped, as every adapter keeps them
 * (`includes/lane-skipped.lua`, `sql-lane-skipped.ts` on PostgreSQL and
 * SQLite): an event for one that comes
 * later is handed back as late, a copy of a handled one is dropped, and past
 * 32 ranges the two oldest merge, so what lies between them reads as skipped
 * (a dead letter) rather than handled (a silent drop).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { AppendResult, OutgoingEvent } from '../../src/events/outgoing-event.js';
import { syncLane } from '../../src/ordering/lane.js';
import type { OrderingStore } from '../../src/ordering/ordering-store.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { RedisOrderingStore } from '../../src/transports/redis/redis.ordering-store.js';
import { RedisStreamEventLog } from '../../src/transports/redis/redis-stream.event-log.js';
import { SqlEventLog } from '../../src/transports/sql/sql.event-log.js';
import { SqlOrderingStore } from '../../src/transports/sql/sql.ordering-store.js';
import { SqlDb } from '../../src/transports/sql/sql-db.js';
import type { SqlWakeups } from '../../src/transports/sql/sql-wakeups.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';
import { sqlTestDatabases } from '../helpers/sql.js';

const PREFIX = testPrefix('skipped-ranges');
const redis = openRedis();
afterAll(async () => {
  await deleteKeys(redis, PREFIX);
  await redis.quit();
});

interface Rig {
  readonly store: OrderingStore;
  readonly append: (events: readonly OutgoingEvent[]) => Promise<AppendResult>;
}

const databases = sqlTestDatabases();

/** Wake-ups nobody waits for: the rig drives the store directly. */
const noWakeups: SqlWakeups = {
  notifyIn: async () => {},
  local: () => {},
  wait: async () => {},
  interrupt: () => {},
  resume: () => {},
  notification: () => ['commitbus', ''],
  close: async () => {},
};

function rigOf(kind: 'redis' | 'postgres' | 'sqlite'): Rig {
  if (kind === 'postgres' || kind === 'sqlite') {
    const db = new SqlDb(databases[kind]);
    const store = new SqlOrderingStore(db, 'sr', { gapWaitMs: 0, wakeups: noWakeups, pollMs: 50 });
    const log = new SqlEventLog(db, 'sr', {
      dedupeWindowMs: 60_000,
      wakeups: noWakeups,
      lanes: (tx, events) => store.openLanes(tx, events),
    });
    return { store, append: (events) => log.append(events) };
  }
  const names = queueNames({ prefix: PREFIX, name: 'sr' });
  const log = new RedisStreamEventLog(redis, names, 60_000);
  return { store: new RedisOrderingStore(redis, names.ordering), append: (events) => log.append(events) };
}

describe.each(['redis', 'postgres', 'sqlite'] as const)('skipped positions (%s)', (kind) => {
  it('hands back an event of a skipped position as late, drops a copy of a handled one, and merges the oldest ranges past 32', async () => {
    const { store, append } = rigOf(kind);
    const lane = syncLane('k');
    const publish = (position: number, id = `${kind}-${position}`) =>
      append([{ id, payload: `p${position}`, lane, position }]);
    await store.maintain('w', 60_000);
    // 33 re-bases, each skipping nine positions: [1, 10), [11, 20), ... [321, 330); 10, 20, ... 330 are handled.
    for (let i = 1; i <= 33; i++) {
      await publish(10 * i);
      expect(await store.rebase(lane)).toEqual({ status: 'ok', from: 10 * (i - 1) + 1, to: 10 * i });
      expect((await store.take('w', 1)).map((e) => e.position)).toEqual([10 * i]);
      await store.steps('w', [{ op: 'done', lane, position: 10 * i, fanOut: [] }]);
    }

    // Republished copies come with ids of their own (a copy of the same id within the window is a dedupe drop).
    const late = async (position: number) =>
      (await publish(position, `${kind}-copy-${position}`)).late?.map((l) => [l.position, l.rebase]);
    expect(await late(325)).toEqual([[325, { from: 321, to: 330, why: 'operator', at: expect.any(Number) }]]);
    // The two oldest ranges merged into [1, 20): position 10, handled between them, reads as skipped too.
    expect(await late(5)).toEqual([[5, expect.objectContaining({ from: 1, to: 20 })]]);
    expect(await late(10)).toEqual([[10, expect.objectContaining({ from: 1, to: 20 })]]);
    expect(await late(25)).toEqual([[25, expect.objectContaining({ from: 21, to: 30 })]]);
    // Late again when published again: its id is not kept as seen (a publisher that failed to keep it retries).
    expect(await late(25)).toHaveLength(1);
    // Handled positions outside the merged ranges are copies: dropped, as before.
    expect(await publish(320, `${kind}-copy-320`)).toEqual({ appended: 0, delayed: 0, dropped: 1 });
    expect(await publish(330, `${kind}-copy-330`)).toEqual({ appended: 0, delayed: 0, dropped: 1 });
    expect(await store.pending()).toBe(0);
  });
});
