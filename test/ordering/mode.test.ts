/**
 * Only what is used runs: a worker starts the ordered lanes' consumer (on
 * Redis two more connections and an upkeep call every `ordering.upkeepMs`) only
 * when the bus can see ordered events: a registered class with `orderBy`, or
 * `config.ordering: 'on'`. A bus without lanes refuses an `orderKey` instead of
 * stranding the event where no worker looks.
 */
import { describe, expect, it } from 'vitest';
import {
  type CommitbusOptions,
  ConfigError,
  defineHandler,
  Event,
  EventType,
  loadConfigFromEnv,
  OrderingDisabledError,
} from '../../src/index.js';
import { queueNamesOf } from '../../src/transports/redis/queue-names.js';
import type { SqlTransport } from '../../src/transports/sql/sql.transport.js';
import { fastConfig } from '../helpers/buses.js';
import { scanKeys } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES, type TransportName, testTransport } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('NOTE.ADD')
class NoteAdded extends Event {
  note!: string;
}

@EventType('ITEM.CHANGE', { orderBy: (e: ItemChanged) => `item:${e.item}` })
class ItemChanged extends Event {
  item!: number;
}

const bed = redisTestBed('ordering-mode');
let buses = 0;

/** The tables of the SQL transport's ordered lanes. */
const LANE_TABLES = [
  'commitbus_lanes',
  'commitbus_lane_events',
  'commitbus_lane_workers',
  'commitbus_lane_counters',
];

/** `bus`'s rows in the lane tables, as `<table>` names, one per row. */
async function laneRows(transport: SqlTransport, bus: string): Promise<string[]> {
  const rows: string[] = [];
  for (const table of LANE_TABLES) {
    const found = await transport.db.query(`SELECT 1 FROM ${table} WHERE bus = ?`, [bus]);
    rows.push(...found.map(() => table));
  }
  return rows;
}

/** A worker bus on `transport`, recording the notes it handles with their ordering. */
async function startBus(
  transport: TransportName,
  events: (typeof NoteAdded | typeof ItemChanged)[],
  config: CommitbusOptions = {},
) {
  const seen: string[] = [];
  const record = defineHandler<NoteAdded>('notes.record', (e) => {
    seen.push(e.ordering === undefined ? e.note : `${e.note} seq=${e.ordering.seq} prev=${e.ordering.prev}`);
  });
  const busConfig = fastConfig({ prefix: bed.prefix, name: `b${++buses}`, ...config });
  const { bus } = await bed.buses.start({
    events,
    handlers: { 'NOTE.ADD': [[record, true]] },
    config: busConfig,
    transport: testTransport(transport),
  });
  /** The bus's ordering keys in Redis, or its rows in the SQL lane tables. */
  const orderingKeys = () =>
    transport === 'redis'
      ? scanKeys(bed.redis, `${queueNamesOf(bus.config).ordering}*`)
      : laneRows(bus.transport as SqlTransport, busConfig.name ?? '');
  /** Workers holding a lease on the lanes, read through the ordering store (both transports). */
  const leases = async () => (await bus.transport.ordering.inspect([], [])).leases.size;
  return { bus, seen, orderingKeys, leases };
}

describe.each(TRANSPORT_NAMES)('on %s', (transport) => {
  it('a bus whose classes have no orderBy runs no ordered lanes, and refuses an orderKey with a clear error', async () => {
    const { bus, seen, orderingKeys, leases } = await startBus(transport, [NoteAdded]);
    // A delayed event too: the release task has run by the time it is handled.
    await bus.publish(NoteAdded.create({ note: 'now' }));
    await bus.publish(NoteAdded.create({ note: 'later' }), { delay: 30 });
    await waitFor('both notes to be handled', () => seen.length === 2);
    expect(seen).toEqual(['now', 'later']);
    expect(await orderingKeys()).toEqual([]);
    expect(await leases()).toBe(0);

    const ordered = bus.publish(NoteAdded.create({ note: 'ordered' }), { orderKey: 'note:1' });
    await expect(ordered).rejects.toBeInstanceOf(OrderingDisabledError);
    await expect(ordered).rejects.toMatchObject({
      code: 'COMMITBUS_ORDERING_DISABLED',
      message: expect.stringContaining(
        "set ordering: { mode: 'on' } (COMMITBUS_ORDERING_MODE=on) on every process of the bus",
      ),
    });
    expect(await bus.backlog()).toBe(0);
    await bus.whenIdle();
    expect(seen).toEqual(['now', 'later']);
    expect(await orderingKeys()).toEqual([]);
  });

  it("ordering: 'on' runs the lanes for events ordered only by the orderKey option", async () => {
    const { bus, seen, orderingKeys, leases } = await startBus(transport, [NoteAdded], { ordering: 'on' });
    expect(await leases()).toBe(1);
    expect(await orderingKeys()).not.toEqual([]);
    for (const note of ['a', 'b', 'c']) await bus.publish(NoteAdded.create({ note }), { orderKey: 'note:1' });
    await bus.whenIdle();
    expect(seen.map((s) => s.split(' ')[0])).toEqual(['a', 'b', 'c']);
    const seqs = seen.map((s) => /seq=(\d+) prev=(\w+)/.exec(s)?.slice(1));
    expect(seqs[0]?.[1]).toBe('undefined');
    expect(seqs[1]?.[1]).toBe(seqs[0]?.[0]);
    expect(seqs[2]?.[1]).toBe(seqs[1]?.[0]);
  });

  it('a registered class with orderBy turns the lanes on by itself', async () => {
    const { bus, seen, orderingKeys, leases } = await startBus(transport, [NoteAdded, ItemChanged]);
    expect(await leases()).toBe(1);
    expect(await orderingKeys()).not.toEqual([]);
    await bus.publish(NoteAdded.create({ note: 'n' }), { orderKey: 'note:2' });
    await bus.whenIdle();
    expect(seen).toEqual([expect.stringMatching(/^n seq=\d+ prev=undefined$/)]);
  });
});

describe('config.ordering', () => {
  it("'off' with a class that has orderBy is refused at construction, naming the class", () => {
    expect(() => bed.buses.create({ events: [NoteAdded, ItemChanged], config: { ordering: 'off' } })).toThrow(
      ConfigError,
    );
    expect(() => bed.buses.create({ events: [ItemChanged], config: { ordering: 'off' } })).toThrow(
      'ordering is "off" but these event classes have orderBy: ITEM.CHANGE',
    );
  });

  it("is read from COMMITBUS_ORDERING and must be 'auto', 'on' or 'off'", () => {
    expect(loadConfigFromEnv({ COMMITBUS_ORDERING: 'on' }).ordering.mode).toBe('on');
    expect(loadConfigFromEnv({}).ordering.mode).toBe('auto');
    expect(() => loadConfigFromEnv({ COMMITBUS_ORDERING: 'sometimes' })).toThrow(
      'ordering.mode must be "auto", "on" or "off", got "sometimes"',
    );
  });
});
