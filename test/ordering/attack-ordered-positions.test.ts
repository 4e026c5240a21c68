/**
 * Attack: two processes of one bus disagree on the outbox (README: "Every
 * process of a bus must agree on whether it has an outbox: positions come
 * from the database with one and from Redis without"). An operator's one-off
 * script without a DataSource publishes an ordered event for a key the
 * service's units of work also publish for: its publish must fail, not lose it.
 */
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventHandlersConfig,
  OrderingPositionsMismatchError,
  SendEventOp,
  UnitOfWorkManager,
} from '../../src/index.js';
import { LaneEvent, laneEvent } from '../helpers/attack-events.js';
import { fastConfig } from '../helpers/buses.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { Recorder } from '../helpers/recorder.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';

const SCHEMA = 'commitbus_test_attack_positions';
const { prefix: PREFIX, buses } = redisTestBed('attack-positions');
let dataSource: DataSource;
beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, []);
});
afterAll(async () => {
  await buses.closeAll();
  await closeSchema(dataSource);
});

describe('an ordered event published without the outbox the rest of its bus has', () => {
  it('is handled, or its publish fails: it is not dropped as a duplicate', async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'ATTACK.LANE': [[rec.handler('positions.lane'), true]] };
    const config = fastConfig({ prefix: PREFIX, name: 'mixed' });
    const { bus: service } = await buses.start({
      events: [LaneEvent],
      handlers,
      config,
      transport: testRedis(),
      dataSource,
    });
    const uows = new UnitOfWorkManager({ dataSource, bus: service });
    const [first, second] = [laneEvent('K', 0), laneEvent('K', 1)];
    await uows.run(async (uow) => {
      uow.register(new SendEventOp(first));
      uow.register(new SendEventOp(second));
    });
    await service.whenIdle(10_000);

    // The script: same bus, no DataSource.
    const script = buses.create({ events: [LaneEvent], config, transport: testRedis() });
    const fromScript = laneEvent('K', 2);
    const refusal: unknown[] = [];
    const published = await script.publish(fromScript).then(
      () => true,
      (error: unknown) => {
        refusal.push(error);
        return false;
      },
    );
    await service.whenIdle(10_000);

    // Redis would give it position 1, which the lane has passed: the lane
    // remembers its positions come from the outbox and refuses the publish.
    if (!published) expect(refusal[0]).toBeInstanceOf(OrderingPositionsMismatchError);
    if (published) expect(rec.count('positions.lane', fromScript.id)).toBe(1);
    expect(
      rec.notRunOnce('positions.lane', [first.id, second.id, ...(published ? [fromScript.id] : [])]),
    ).toEqual([]);
  });
});
