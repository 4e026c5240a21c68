import { afterAll, describe, expect, it } from 'vitest';
import { eventDeadLetter } from '../../src/dead-letters/dead-letter.js';
import type { DrainedEvent } from '../../src/handlers/dispatcher.js';
import { drainBatch } from '../../src/handlers/drain-batch.js';
import type { LogEntry } from '../../src/handlers/event-log.js';
import type { HandlerJob } from '../../src/handlers/handler-job.js';
import {
  createEventBus,
  type DeadLetter,
  type EventHandlersConfig,
  silentLogger,
  TransportUnavailableError,
} from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { embeddedTransport } from '../helpers/embedded.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { testTransport } from '../helpers/transports.js';

const bus = createEventBus({ events: TEST_EVENTS, logger: silentLogger });
afterAll(() => bus.close());

/** A batch of three events, each with one async job for `handlers[i]`. */
function batch(handlers: readonly string[]): { entries: LogEntry[]; ids: string[] } {
  const events = handlers.map((_, i) => recordCreated(`r${i}`));
  return {
    entries: events.map((event, i) => ({ entryId: `1-${i}`, payload: bus.encode(event).payload })),
    ids: events.map((e) => e.id),
  };
}

/** The drain's view of a handler table with one async handler per event: the one its entry names. */
function drainOneFor(entries: LogEntry[], handlers: readonly string[]) {
  return async ({ payload }: LogEntry): Promise<DrainedEvent> => {
    const handler = handlers[entries.findIndex((e) => e.payload === payload)] as string;
    if (handler === 'drain.throws') throw new TypeError('the gate broke');
    if (handler === 'drain.outage') {
      throw new TransportUnavailableError('park a run', 'Redis', { cause: new Error('ECONNREFUSED') });
    }
    const job: HandlerJob = {
      kind: 'async',
      jobId: `${JSON.parse(payload).event.id}.${handler}`,
      payload,
      handler,
      attempts: 3,
      backoff: { type: 'fixed', delayMs: 0 },
      delayMs: 0,
    };
    return { jobs: [job], deadLetters: [] };
  };
}

/**
 * A transport's enqueue that takes jobs in batches like Redis: a batch holding
 * a `job.refused` job is refused whole, one holding a `job.outage` job meets an outage.
 */
function enqueueInto(accepted: HandlerJob[]) {
  return async (jobs: HandlerJob[]): Promise<void> => {
    if (jobs.some((j) => j.handler === 'job.outage')) {
      throw new TransportUnavailableError('enqueue', 'Redis', { cause: new Error('Connection is closed.') });
    }
    if (jobs.some((j) => j.handler === 'job.refused')) throw new Error('job refused by the queue');
    accepted.push(...jobs);
  };
}

describe('drainBatch: one event cannot fail the rest of its batch', () => {
  it('a job the transport refuses becomes its handler dead letter (undeliverable); the other jobs go out; all acknowledged', async () => {
    const handlers = ['job.ok', 'job.refused', 'job.ok2'];
    const { entries, ids } = batch(handlers);
    const accepted: HandlerJob[] = [];
    const deadLetters = embeddedTransport().deadLetters;
    const acked = await drainBatch(entries, {
      drainOne: drainOneFor(entries, handlers),
      enqueue: enqueueInto(accepted),
      deadLetters,
      logger: silentLogger,
    });

    expect(acked).toEqual(['1-0', '1-1', '1-2']);
    expect(accepted.map((j) => j.handler).sort()).toEqual(['job.ok', 'job.ok2']);
    const [letter] = await deadLetters.list();
    expect(letter).toMatchObject({
      id: `${ids[1]}.job.refused`,
      kind: 'handler',
      handler: 'job.refused',
      reason: 'undeliverable',
      error: 'job refused by the queue',
    });
    expect(letter?.attempts).toHaveLength(1);
  });

  it('an event the drain fails on becomes a dead letter of kind event; the others are handled and acknowledged', async () => {
    const handlers = ['job.ok', 'drain.throws', 'job.ok2'];
    const { entries, ids } = batch(handlers);
    const accepted: HandlerJob[] = [];
    const deadLetters = embeddedTransport().deadLetters;
    const acked = await drainBatch(entries, {
      drainOne: drainOneFor(entries, handlers),
      enqueue: enqueueInto(accepted),
      deadLetters,
      logger: silentLogger,
    });

    expect(acked).toEqual(['1-0', '1-1', '1-2']);
    expect(accepted.map((j) => j.handler)).toEqual(['job.ok', 'job.ok2']);
    const letters = await deadLetters.list();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      kind: 'event',
      eventId: ids[1],
      reason: 'undeliverable',
      error: 'the gate broke',
      payload: entries[1]?.payload,
    });
    expect(letters[0]?.id).toMatch(/^event\.[0-9a-f]{32}$/);
  });

  it('an event whose handling or job meets an outage stays in the log; the others are acknowledged', async () => {
    const handlers = ['job.ok', 'drain.outage', 'job.outage'];
    const { entries } = batch(handlers);
    const accepted: HandlerJob[] = [];
    const deadLetters = embeddedTransport().deadLetters;
    const acked = await drainBatch(entries, {
      drainOne: drainOneFor(entries, handlers),
      enqueue: enqueueInto(accepted),
      deadLetters,
      logger: silentLogger,
    });

    expect(acked).toEqual(['1-0']);
    expect(accepted.map((j) => j.handler)).toEqual(['job.ok']);
    expect(await deadLetters.list()).toEqual([]);
  });
});

describe('dead letters of kind event', () => {
  it('are published again when re-driven, so every handler of the event runs', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      RECORD: [[rec.handler('redrive.sync'), true]],
      'RECORD.CREATE': [rec.handler('redrive.async')],
    };
    const worker = createEventBus({
      events: TEST_EVENTS,
      handlers,
      config: fastConfig({}),
      transport: testTransport('sqlite'),
      logger: silentLogger,
    });
    try {
      await worker.startWorker({ handleSignals: false });
      const event = recordCreated('again');
      const letter: DeadLetter = eventDeadLetter(worker.encode(event).payload, 'undeliverable', [
        { attempt: 1, at: new Date(), error: 'the gate broke', name: 'TypeError' },
      ]);
      await worker.transport.deadLetters.add([letter]);

      expect(await worker.deadLetters.redrive({ kind: 'event' })).toBe(1);
      await worker.whenIdle(10_000);
      expect(rec.order(event.id)).toEqual(['redrive.sync', 'redrive.async']);
      expect(await worker.deadLetters.list()).toEqual([]);
    } finally {
      await worker.close();
    }
  });
});
