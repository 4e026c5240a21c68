/**
 * Attack: a bus on `sqliteTransport({ file })` used around its close, and
 * handlers that misbehave on it. After `close()` every call is refused with
 * `BusClosedError` (not the transport's "DataSource not initialized", whose
 * advice is for the application's own DataSource); publishes begun before
 * the close finish before the file is closed, so none is cut off; a close
 * while a handler runs waits for it, and the event is not run again by the
 * next bus on the file. Handlers that throw what is not an Error, or hang
 * past their timeout, end as dead letters that say so, and the bus closes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BusClosedError, defineHandler, type EventHandlersConfig } from '../../../src/index.js';
import { sqliteTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { waitFor } from '../../helpers/wait-for.js';

const buses = new Buses();
afterEach(() => buses.closeAll());

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** A database file in a fresh temporary folder. */
async function databaseFile(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'cb-sqlite-close-'));
  folders.push(folder);
  return join(folder, 'events.sqlite');
}

describe('a bus on a SQLite file, after and during close()', () => {
  it('refuses every call after close with BusClosedError', async () => {
    const bus = buses.create({
      events: TEST_EVENTS,
      transport: sqliteTransport({ file: await databaseFile(), pollMs: 20 }),
    });
    await bus.publish(recordCreated('before'));
    await bus.close();
    const calls = {
      publish: () => bus.publish(recordCreated('after')),
      backlog: () => bus.backlog(),
      status: () => bus.status(),
      whenIdle: () => bus.whenIdle(1_000),
      startWorker: () => bus.startWorker({ handleSignals: false }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const error = await (call as () => Promise<unknown>)().catch((e: unknown) => e);
      expect([name, error]).toEqual([name, expect.any(BusClosedError)]);
    }
    await bus.close();
  });

  it('lets publishes begun before close finish: every one resolves, and the file holds them all', async () => {
    const file = await databaseFile();
    const config = fastConfig({ name: 'close-while-publishing' });
    const bus = buses.create({
      events: TEST_EVENTS,
      config,
      transport: sqliteTransport({ file, pollMs: 20 }),
    });
    const events = Array.from({ length: 40 }, (_, i) => recordCreated(`p${i}`));
    const publishes = events.map((event) =>
      bus.publish(event).then(
        () => 'published',
        (error: unknown) => String(error),
      ),
    );
    await bus.close();
    expect(await Promise.all(publishes)).toEqual(events.map(() => 'published'));

    const reopened = buses.create({ events: TEST_EVENTS, config, transport: sqliteTransport({ file }) });
    expect(await reopened.backlog()).toBe(events.length);
  });

  it('waits for a handler running at close, which the next bus on the file does not run again', async () => {
    const file = await databaseFile();
    const config = fastConfig({ name: 'close-while-handling' });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rec = new Recorder();
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: { 'RECORD.CREATE': [[rec.handler('close.slow', () => released), true]] },
      config,
      transport: sqliteTransport({ file, pollMs: 20 }),
    });
    const event = recordCreated('in-flight');
    await bus.publish(event);
    await waitFor('the handler to start', () => rec.count('close.slow') === 1);
    const closing = bus.close();
    release();
    await closing;

    const again = new Recorder();
    const { bus: next } = await buses.start({
      events: TEST_EVENTS,
      handlers: { 'RECORD.CREATE': [[again.handler('close.slow'), true]] },
      config,
      transport: sqliteTransport({ file, pollMs: 20 }),
    });
    await next.whenIdle(10_000);
    expect({ first: rec.count('close.slow'), next: again.count('close.slow') }).toEqual({
      first: 1,
      next: 0,
    });
    expect(await next.deadLetters.list()).toEqual([]);
  });
});

/** Handlers that throw what is not an Error, by the `recid` of the event, and one that never settles. */
function misbehaving(): EventHandlersConfig {
  const thrown: Record<string, () => unknown> = {
    string: () => 'a plain string',
    undefined: () => undefined,
    null: () => null,
    object: () => ({ status: 503 }),
    number: () => 42,
  };
  const thrower = defineHandler<RecordCreated>('attack.throws', async (event) => {
    throw (thrown[event.recid] as () => unknown)();
  });
  const hang = defineHandler<RecordCreated>('attack.hangs', () => new Promise<void>(() => {}));
  return {
    'RECORD.CREATE': [[thrower, true], { handler: hang, sync: true, timeoutMs: 50 }],
  };
}

describe('handlers that misbehave on a SQLite file', () => {
  it('throwing non-Errors or hanging past the timeout: dead letters that say what happened, and the bus closes', async () => {
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: misbehaving(),
      config: fastConfig({ name: 'misbehaving', handlers: { attempts: 2 } }),
      transport: sqliteTransport({ file: await databaseFile(), pollMs: 20 }),
    });
    const events = ['string', 'undefined', 'null', 'object', 'number'].map(recordCreated);
    await bus.publish(events);
    await waitFor('a dead letter for each handler of each event', async () => {
      return (await bus.deadLetters.list()).length === events.length * 2;
    });
    const letters = await bus.deadLetters.list();
    const byHandler = (handler: string) =>
      events.map((e) => letters.find((l) => l.eventId === e.id && l.handler === handler)?.error);
    expect(byHandler('attack.throws')).toEqual([
      expect.stringContaining('a plain string'),
      expect.stringContaining('undefined'),
      expect.stringContaining('null'),
      expect.stringContaining('503'),
      expect.stringContaining('42'),
    ]);
    expect(byHandler('attack.hangs')).toEqual(events.map(() => expect.stringMatching(/timed out|timeout/i)));
    expect(await bus.backlog()).toBe(0);
  });
});
