/**
 * Dead-letter retention through the public API, on each transport: a worker
 * whose handler gives up stores its letters, and past
 * `deadLetters.maxCount` the oldest go first; `bus.status()` and the
 * metrics count the drops (`commitbus_dead_letters_dropped_total`), and the
 * process logs them once, not once per drop.
 */
import { describe, expect, it } from 'vitest';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { fastConfig } from '../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix, buses } = redisTestBed('dl-retention');

const handlers: EventHandlersConfig = {
  'RECORD.CREATE': [
    {
      handler: defineHandler('doomed', () => {
        throw new Error('doomed is down');
      }),
      attempts: 1,
    },
  ],
};

describe.each(TRANSPORT_NAMES)('dead-letter retention on %s', (transport) => {
  it('keeps the newest deadLetters.maxCount letters, and counts and logs the dropped ones', async () => {
    const logger = recordingLogger();
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers,
      logger,
      config: fastConfig({ prefix, name: `retention-${transport}`, deadLetters: { maxCount: 2 } }),
      transport: testTransport(transport),
    });
    // One at a time, so the letters' times are in the order published.
    const ids: string[] = [];
    for (const recid of ['r1', 'r2', 'r3', 'r4']) {
      const event = recordCreated(recid);
      ids.push(event.id);
      await bus.publish(event);
      await waitFor(
        `the letter of ${recid}`,
        async () => (await bus.deadLetters.get(`${event.id}.doomed`)) !== undefined,
      );
    }
    const status = await bus.status();
    expect(status.deadLetters).toEqual({
      count: 2,
      byKind: { handler: 2 },
      byHandler: { doomed: 2 },
      dropped: 2,
    });
    const kept = await bus.deadLetters.list();
    expect(kept.map((l) => l.eventId)).toEqual(ids.slice(2));
    const text = await createBusMetrics(bus).metrics();
    expect(text).toMatch(/^commitbus_dead_letters_dropped_total 2$/m);
    expect(text).toMatch(/^commitbus_dead_letters_stored\{kind="handler"\} 2$/m);
    // Two drops within a minute: one line, naming the limits.
    const lines = logger.at('warn').filter((l) => l.message.startsWith('dead letters dropped'));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toEqual({ dropped: 1, maxCount: 2, maxAgeMs: 15_552_000_000 });

    expect(await bus.deadLetters.purge('all')).toBe(2);
    expect((await bus.status()).deadLetters).toEqual({ count: 0, byKind: {}, byHandler: {}, dropped: 2 });
  });
});
