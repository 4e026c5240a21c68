/**
 * What an operator turned off shows in the metrics and in `bus.status()`:
 * pause and block rules in force (`commitbus_rules_active{kind}`), and a
 * BullMQ queue paused behind commitbus's back (as bull-board's pause button
 * does): `status().pausedQueues` names it and
 * `commitbus_bullmq_queue_paused{queue}` is 1 for it, 0 for the others. A
 * transport whose work is not on BullMQ has none. On both transports.
 */
import { describe, expect, it } from 'vitest';
import { defineHandler } from '../../src/index.js';
import { createBusMetrics } from '../../src/metrics/index.js';
import { fastConfig } from '../helpers/buses.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, testTransport } from '../helpers/transports.js';

const bed = redisTestBed('prom-control-gauges');

describe.each(TRANSPORT_NAMES)('%s transport', (transport) => {
  it('count the rules in force per kind, and show each paused BullMQ queue', async () => {
    const bus = bed.buses.create({
      events: TEST_EVENTS,
      handlers: {
        'RECORD.CREATE': [defineHandler('index', () => {}), defineHandler('mail', () => {})],
      },
      config: fastConfig({ prefix: bed.prefix, name: `control-${transport}` }),
      transport: testTransport(transport),
    });
    const metrics = createBusMetrics(bus, { processMetrics: false });
    const scrape = async () => parsePrometheusText(await metrics.metrics());
    let families = await scrape();
    expect(sampleValue(families, 'commitbus_rules_active', { kind: 'pause' })).toBe(0);
    expect(sampleValue(families, 'commitbus_rules_active', { kind: 'block' })).toBe(0);

    await bus.rules.pause({ handler: 'mail' });
    await bus.rules.pause({ handlingKey: 'RECORD' });
    await bus.rules.block({ handler: 'index' });
    const queues = bus.transport.bullmqQueues ?? [];
    expect(queues.length).toBe(transport === 'redis' ? 3 : 0);
    const paused = queues[1];
    await paused?.pause();
    const status = await bus.status();
    expect(status.pausedQueues).toEqual(paused === undefined ? [] : [paused.name]);

    // A new registry: the old one's status read of a moment ago serves its next scrape too.
    metrics.close();
    const fresh = createBusMetrics(bus, { processMetrics: false });
    families = parsePrometheusText(await fresh.metrics());
    expect(sampleValue(families, 'commitbus_rules_active', { kind: 'pause' })).toBe(2);
    expect(sampleValue(families, 'commitbus_rules_active', { kind: 'block' })).toBe(1);
    const samples = families.get('commitbus_bullmq_queue_paused')?.samples ?? [];
    expect(samples.map((s) => [s.labels.queue, s.value]).sort()).toEqual(
      queues.map((q) => [q.name, q === paused ? 1 : 0]).sort(),
    );
    await paused?.resume();
    fresh.close();
    expect((await bus.status()).pausedQueues).toEqual([]);
  });
});
