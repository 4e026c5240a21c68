/**
 * Dead letters across deploys: payloads the workers cannot decode yet (on
 * both transports) are dead-lettered and republished once their class is
 * deployed; a queued retry whose handler the new workers lack (on bullmq) is
 * dead-lettered and not re-driven there.
 */
import { describe, expect, it } from 'vitest';
import {
  type DeadLetter,
  DeadLetterRedriveError,
  Event,
  EventBus,
  type EventHandlersConfig,
  EventType,
  silentLogger,
} from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { embeddedTransport } from '../helpers/embedded.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { failedHandlerJobs } from '../helpers/redis.js';
import { TRANSPORT_NAMES, testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';
import { deadLetterBed, onTransport } from './dead-letters-bed.js';

const bed = deadLetterBed('dead-letters-deploys');
const { prefix: PREFIX, redis, open } = bed;

/** Deployed later: the first workers of a test do not know this class. */
@EventType('RECORD.ARCHIVE')
class RecordArchived extends Event {
  recid!: string;
}

describe.each(TRANSPORT_NAMES)('%s transport: dead letters', (transport) => {
  const { config, bus, pushRaw, expectLeftInRedis } = onTransport(bed, transport);

  it('dead-letters undecodable payloads, goes on, and republishes them once their class is deployed', async () => {
    const rec = new Recorder();
    // SQLite in memory is one database a bus: the buses of this deployment history share one.
    const shared = transport === 'sqlite' ? embeddedTransport(config('undecodable')) : undefined;
    const oldHandlers: EventHandlersConfig = { RECORD: [[rec.handler('old.record'), true]] };
    const oldWorker = bus(
      { events: TEST_EVENTS, handlers: oldHandlers, config: config('undecodable') },
      shared,
    );
    const running = await oldWorker.startWorker({ handleSignals: false });
    // A service already deployed with the new class publishes before the workers know it.
    const newPublisher = bus(
      { events: [...TEST_EVENTS, RecordArchived], config: config('undecodable') },
      shared,
    );
    const archived = RecordArchived.create({ recid: 'a1' });
    const garbage = 'this is {not json';
    await pushRaw(oldWorker, [garbage, garbage]);
    await newPublisher.publish(archived);
    const after = recordCreated('after');
    await oldWorker.publish(after);
    await oldWorker.whenIdle(10_000);

    expect(rec.order(after.id)).toEqual(['old.record']);
    const letters = await oldWorker.deadLetters.list({ kind: 'undecodable' });
    expect(letters.map((l) => l.reason).sort()).toEqual(['malformed', 'unknown-event-type']);
    const unknown = letters.find((l) => l.reason === 'unknown-event-type') as DeadLetter;
    expect(unknown).toMatchObject({ eventId: archived.id, handlingKey: 'RECORD.ARCHIVE' });
    expect(unknown.error).toMatch(/no event class registered for "RECORD\.ARCHIVE"/);
    expect(unknown.attempts).toHaveLength(1);
    const notJson = letters.find((l) => l.reason === 'malformed') as DeadLetter;
    expect(notJson.payload).toBe(garbage);

    // Re-driven where the class is still unknown: a clear error, and the letter stays.
    const refused = await oldWorker.deadLetters.redrive(unknown.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeadLetterRedriveError);
    expect(refused).toMatchObject({ code: 'COMMITBUS_DEAD_LETTER_REDRIVE', redriven: 0 });
    expect((refused as Error).message).toContain(
      `${unknown.id}: no event class registered for "RECORD.ARCHIVE"`,
    );
    expect((refused as Error).message).toContain('Register the missing event classes');
    expect(await oldWorker.deadLetters.get(unknown.id)).toEqual(unknown);

    // Deploy: workers that know RecordArchived replace the old ones.
    await running.close();
    const archive = rec.handler('archive.record');
    const newWorker = bus(
      {
        events: [...TEST_EVENTS, RecordArchived],
        handlers: { ...oldHandlers, 'RECORD.ARCHIVE': [archive] },
        config: config('undecodable'),
      },
      shared,
    );
    await newWorker.startWorker({ handleSignals: false });
    expect(await newWorker.deadLetters.redrive({ kind: 'undecodable', reason: 'unknown-event-type' })).toBe(
      1,
    );
    await newWorker.whenIdle(10_000);
    expect(rec.order(archived.id)).toEqual(['old.record', 'archive.record']);

    // Garbage stays garbage.
    await expect(newWorker.deadLetters.redrive('all')).rejects.toThrow(
      /malformed event payload \(not valid JSON\)/,
    );
    expect((await newWorker.deadLetters.list()).map((l) => l.id)).toEqual([notJson.id]);
    expect(await newWorker.deadLetters.purge('all')).toBe(1);
    await expectLeftInRedis(newWorker, 0);
  });
});

describe('bullmq transport: dead letters across deploys', () => {
  it('dead-letters a queued retry whose handler the new workers lack, and will not re-drive it there', async () => {
    const rec = new Recorder();
    const config = fastConfig({ prefix: PREFIX, name: 'deploy-handler' });
    const old = new EventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      transport: testRedis(),
      config,
      handlers: {
        'RECORD.CREATE': [
          {
            handler: rec.handler('legacy.sync', () => {
              throw new Error('legacy store is down');
            }),
            sync: true,
            attempts: 2,
            backoff: { type: 'fixed', delayMs: 300, jitter: 0 },
          },
        ],
      },
    });
    open.push(old);
    const oldWorker = await old.startWorker({ handleSignals: false });
    const event = recordCreated('r1');
    await old.publish(event);
    await waitFor('the first attempt, in the drain', () => rec.count('legacy.sync') === 1);
    await oldWorker.close();

    // The new deployment dropped legacy.sync; its retry job is still queued.
    const current = new EventBus({
      events: TEST_EVENTS,
      logger: silentLogger,
      transport: testRedis(),
      config,
      handlers: { 'RECORD.CREATE': [[rec.handler('current.sync'), true]] },
    });
    open.push(current);
    await current.startWorker({ handleSignals: false });
    await current.whenIdle(10_000);

    expect(rec.count('legacy.sync')).toBe(1);
    const letter = await current.deadLetters.get(`${event.id}.legacy.sync`);
    expect(letter).toMatchObject({ reason: 'unknown-handler', handler: 'legacy.sync' });
    expect(letter?.attempts.map((a) => [a.attempt, a.name])).toEqual([
      [1, 'Error'],
      [2, 'UnknownHandlerError'],
    ]);
    await expect(current.deadLetters.redrive(`${event.id}.legacy.sync`)).rejects.toThrow(
      'no handler named "legacy.sync" for "RECORD.CREATE" on this worker',
    );
    expect(await current.deadLetters.get(`${event.id}.legacy.sync`)).toEqual(letter);
    expect(await failedHandlerJobs(redis, current.config)).toBe(0);
  });
});
