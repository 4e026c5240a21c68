/**
 * Attack: event data that changes in transit. `toTransitPlain` checks the
 * plain form class-transformer made, and class-transformer has already
 * rewritten some arrays by then, so what the check promises to refuse goes
 * out changed.
 */
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Event,
  type EventHandlersConfig,
  EventType,
  SendEventOp,
  UnitOfWorkManager,
} from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { outboxRows } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { Recorder } from '../helpers/recorder.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';

@EventType('SLOTS.SET')
class SlotsSet extends Event {
  slots!: unknown[];
}

const SCHEMA = 'commitbus_test_attack_transit';
const { prefix: PREFIX, buses } = redisTestBed('attack-transit');
let dataSource: DataSource;
beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, []);
});
afterAll(async () => {
  await buses.closeAll();
  await closeSchema(dataSource);
});

/** Arrays JSON would not carry as they are (undefined in an array is refused, as documented). */
const CHANGED_IN_TRANSIT: [string, () => unknown[]][] = [
  // slots[2] = 'c' on an empty array: JSON sends [null, null, "c"]; today the handler gets ["c"].
  [
    'a sparse array',
    () => {
      const slots: unknown[] = [];
      slots[2] = 'c';
      return slots;
    },
  ],
];

describe.each(CHANGED_IN_TRANSIT)('%s', (label, slots) => {
  const name = label.replace(/\W+/g, '-');

  it('bus.publish refuses it, or the handler gets the array as it was', async () => {
    const rec = new Recorder();
    const seen: unknown[][] = [];
    const handlers: EventHandlersConfig = {
      'SLOTS.SET': [[rec.handler<SlotsSet>('transit.slots', (e) => void seen.push(e.slots)), true]],
    };
    const { bus } = await buses.start({
      events: [SlotsSet],
      handlers,
      config: fastConfig({ prefix: PREFIX, name: `publish-${name}` }),
      transport: testRedis(),
    });
    const sent = slots();
    const refused = await bus.publish(SlotsSet.create({ slots: sent })).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refused !== undefined) {
      expect((refused as { code?: string }).code).toBe('COMMITBUS_INVALID_EVENT_FIELD');
      return;
    }
    await bus.whenIdle(10_000);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toHaveLength(sent.length);
    expect(seen[0]).toStrictEqual(sent);
  });

  it('uow.register refuses it on PostgreSQL, or the outbox keeps it as it was', async () => {
    const bus = buses.create({
      events: [SlotsSet],
      dataSource,
      config: fastConfig({ prefix: PREFIX, name: `uow-${name}` }),
      transport: testRedis(),
    });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    const sent = slots();
    const refused = await uows
      .run(async (uow) => uow.register(new SendEventOp(SlotsSet.create({ slots: sent }))))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    if (refused !== undefined) {
      expect((refused as { code?: string }).code).toBe('COMMITBUS_INVALID_EVENT_FIELD');
      expect(await outboxRows(dataSource)).toEqual([]);
      return;
    }
    const rows = await outboxRows(dataSource);
    await dataSource.query(`DELETE FROM ${SCHEMA}.commitbus_outbox`);
    const kept = (JSON.parse(rows[0]?.payload ?? '{}') as { event?: { slots?: unknown[] } }).event?.slots;
    expect(kept).toHaveLength(sent.length);
  });
});

describe('data nested deeper than the stack', () => {
  it('is refused with a commitbus error naming the event, not a bare RangeError', async () => {
    const bus = buses.create({
      events: [SlotsSet],
      config: fastConfig({ prefix: PREFIX, name: 'deep' }),
      transport: testRedis(),
    });
    let node: Record<string, unknown> = {};
    const root = node;
    for (let i = 0; i < 20_000; i++) {
      const inner = {};
      node.next = inner;
      node = inner;
    }
    const refused = await bus.publish(SlotsSet.create({ slots: [root] })).catch((error: unknown) => error);
    // Today: `RangeError: Maximum call stack size exceeded`, no code, no event, no field.
    expect((refused as { code?: string }).code).toMatch(/^COMMITBUS_/);
  });
});
