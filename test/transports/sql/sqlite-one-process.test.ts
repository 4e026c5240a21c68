/**
 * Attack: two buses of one process, each with a worker, on one SQLite file
 * (`sqliteTransport({ file })` twice). With a connection each, one bus waited
 * for the other's write lock with the event loop blocked (better-sqlite3
 * waits synchronously), so the holder could not finish: both stalled for
 * SQLite's 5 s busy timeout, then failed with `SQLITE_BUSY`. They share the
 * file's DataSource now: every event is handled once per handler, quickly,
 * and when one bus closes the other goes on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sqliteTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { waitFor } from '../../helpers/wait-for.js';

const buses = new Buses();
afterEach(() => buses.closeAll());
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

describe('two workers of one process on one SQLite file', () => {
  it('handle every event once per handler without waiting on each other, and one goes on when the other closes', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'cb-sqlite-one-process-'));
    folders.push(folder);
    const file = join(folder, 'events.sqlite');
    const rec = new Recorder();
    const start = () =>
      buses.start({
        events: TEST_EVENTS,
        handlers: { 'RECORD.CREATE': [[rec.handler('one.sync'), true], rec.handler('one.async')] },
        config: fastConfig({ name: 'one-process' }),
        transport: sqliteTransport({ file, pollMs: 20 }),
      });
    const [{ bus: a }, { bus: b }] = await Promise.all([start(), start()]);
    // Timer ticks stop while the event loop is blocked: the longest gap says whether a bus waited on the lock.
    let longestGapMs = 0;
    let last = Date.now();
    const ticks = setInterval(() => {
      longestGapMs = Math.max(longestGapMs, Date.now() - last);
      last = Date.now();
    }, 10);
    const events = Array.from({ length: 200 }, (_, i) => recordCreated(`e${i}`));
    try {
      for (let i = 0; i < events.length; i += 10)
        await (i % 20 === 0 ? a : b).publish(events.slice(i, i + 10));
      await waitFor('every event handled by both handlers', () =>
        events.every((e) => rec.count('one.sync', e.id) > 0 && rec.count('one.async', e.id) > 0),
      );
    } finally {
      clearInterval(ticks);
    }
    expect(longestGapMs).toBeLessThan(2_500);
    await a.whenIdle(10_000);
    const notOnce = events.filter(
      (e) => rec.count('one.sync', e.id) !== 1 || rec.count('one.async', e.id) !== 1,
    );
    expect(notOnce.map((e) => e.recid)).toEqual([]);

    await a.close();
    const after = recordCreated('after-close');
    await b.publish(after);
    await b.whenIdle(10_000);
    expect([rec.count('one.sync', after.id), rec.count('one.async', after.id)]).toEqual([1, 1]);
    expect(await b.deadLetters.list()).toEqual([]);
  });
});
