/**
 * Many workers on one database at once, through the `OrderingStore` port:
 * five workers take lanes, finish their events (fanning each out to an async
 * lane) and renew their leases while three publishers append to the same
 * keys, each call on a connection of its own on PostgreSQL (on SQLite one
 * after the other). Every lane hands its events out once each, in position
 * order, no step is lost, and no call fails (a deadlock or serialization
 * failure is run again inside the store).
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/index.js';
import { asyncLane, syncLane } from '../../../src/ordering/lane.js';
import type { LaneEvent, LaneStep } from '../../../src/ordering/ordering-store.js';
import { SqlEventLog } from '../../../src/transports/sql/sql.event-log.js';
import { SqlOrderingStore } from '../../../src/transports/sql/sql.ordering-store.js';
import { SqlDb } from '../../../src/transports/sql/sql-db.js';
import { openSqlWakeups } from '../../../src/transports/sql/sql-notifications.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const KEYS = 8;
const EVENTS = 180;

describe.each(['postgres', 'sqlite'] as const)('ordered lanes with many workers at once (%s)', (which) => {
  it('hands each lane its events once, in order, with no step lost and no call failing', async () => {
    const bus = `workers-${which}`;
    const db = new SqlDb(databases[which]);
    const wakeups = openSqlWakeups(db, bus, silentLogger);
    const store = new SqlOrderingStore(db, bus, { gapWaitMs: 0, wakeups, pollMs: 20 });
    const log = new SqlEventLog(db, bus, {
      dedupeWindowMs: 60_000,
      wakeups,
      lanes: (tx, events) => store.openLanes(tx, events),
    });
    const handed = new Map<string, number[]>();
    const failures: string[] = [];
    let ids = 0;
    const publisher = async () => {
      for (let i = 0; i < EVENTS / 3 / 4; i++) {
        const batch = Array.from({ length: 4 }, () => {
          const key = `k${Math.floor(Math.random() * KEYS)}`;
          return { id: `e${++ids}`, payload: key, lane: syncLane(key) };
        });
        await log.append(batch).catch((error: Error) => failures.push(`publish: ${error.message}`));
      }
    };
    let stopping = false;
    const worker = async (id: string) => {
      let held: LaneEvent[] = [];
      let renewedAt = 0;
      while (!stopping) {
        try {
          if (Date.now() - renewedAt > 1_000) {
            renewedAt = Date.now();
            await store.maintain(id, 10_000);
          }
          if (held.length === 0) held = await store.take(id, 3);
          if (held.length === 0) {
            const one = await store.waitAndClaim(id, 50);
            held = one === undefined ? [] : [one];
            continue;
          }
          for (const e of held) handed.set(e.lane, [...(handed.get(e.lane) ?? []), e.position]);
          const steps: LaneStep[] = held.map((e) => ({
            op: 'done',
            lane: e.lane,
            position: e.position,
            fanOut: e.lane.startsWith('s|') ? [asyncLane('h', e.lane.slice(2))] : [],
          }));
          const replies = await store.steps(id, steps);
          if (replies.includes('lost')) failures.push(`${id}: a step was lost`);
          held = replies.filter((r): r is LaneEvent => typeof r === 'object');
        } catch (error) {
          failures.push(`${id}: ${(error as Error).message}`);
          held = [];
        }
      }
      await store.leave(id);
    };
    const workers = Array.from({ length: 5 }, (_, i) => worker(`w${i}`));
    await Promise.all([publisher(), publisher(), publisher()]);
    await waitFor('every lane to drain', async () => (await store.pending()) === 0, { timeoutMs: 60_000 });
    stopping = true;
    await Promise.all(workers);
    await wakeups.close();

    expect(failures).toEqual([]);
    let total = 0;
    for (const [lane, positions] of handed) {
      expect(positions, lane).toEqual(positions.map((_, i) => i + 1));
      total += positions.length;
    }
    // Each event once on its sync lane and once on its async lane.
    expect(total).toBe(2 * EVENTS);
  }, 90_000);
});
