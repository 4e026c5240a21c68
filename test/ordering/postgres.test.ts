/**
 * Ordered events through units of work on PostgreSQL (and SQLite, the
 * embedded default): positions are reserved in the unit of work's
 * transaction, so a key's events are handled in commit order, even when a
 * publisher dies between commit and publish and a relay sends its event late.
 */
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMITBUS_ENTITIES,
  defineHandler,
  Event,
  EventType,
  OrderingNotConfiguredError,
  SendEventOp,
  UnitOfWorkManager,
} from '../../src/index.js';
import { OrderKeyRecordEntity } from '../../src/ordering/order-key-record.entity.js';
import { OutboxRecordEntity } from '../../src/outbox/outbox-record.entity.js';
import { sqliteTransport } from '../../src/transports/sql/index.js';
import { fastConfig } from '../helpers/buses.js';
import { DEAD_PUBLISHER, openSqlite } from '../helpers/outbox.js';
import { closeSchema, connectSchema, openSchema } from '../helpers/postgres.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

@EventType('ACCOUNT.MOVE', { orderBy: (e: AccountMoved) => `account:${e.account}` })
class AccountMoved extends Event {
  account!: string;
  label!: string;
}

const SCHEMA = 'commitbus_test_ordering';
const bed = redisTestBed('ordering-pg');
let dataSource: DataSource;
let names = 0;
const config = (overrides = {}) =>
  fastConfig({
    prefix: bed.prefix,
    name: `pg${++names}`,
    delayedPollMs: 20,
    ...overrides,
  });

beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, []);
});
beforeEach(async () => {
  await dataSource.getRepository(OutboxRecordEntity).clear();
  await dataSource.getRepository(OrderKeyRecordEntity).clear();
});
afterAll(() => closeSchema(dataSource));

/** A handler recording the labels it sees per account, with seq and prev. */
function labels() {
  const seen: { label: string; seq: number; prev: number | undefined }[] = [];
  const handler = defineHandler<AccountMoved>('account.apply', (e) => {
    seen.push({ label: e.label, seq: e.ordering?.seq ?? -1, prev: e.ordering?.prev });
  });
  return { seen, handlers: { ACCOUNT: [[handler, true] as const] } };
}

describe('ordered events from units of work on PostgreSQL', () => {
  it('are handled in commit order, not registration order', async () => {
    const { seen, handlers } = labels();
    const { bus } = await bed.buses.start({
      events: [AccountMoved],
      handlers,
      dataSource,
      config: config(),
      transport: testRedis(),
    });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    let letFirstCommit: () => void = () => {};
    const firstMayCommit = new Promise<void>((resolve) => {
      letFirstCommit = resolve;
    });
    // `first` registers its event first but commits last.
    const first = uows.run(async (uow) => {
      uow.register(new SendEventOp(AccountMoved.create({ account: 'a', label: 'registered first' })));
      await firstMayCommit;
    });
    await uows.run(async (uow) => {
      uow.register(new SendEventOp(AccountMoved.create({ account: 'a', label: 'committed first' })));
    });
    letFirstCommit();
    await first;
    await bus.whenIdle(10_000);
    expect(seen.map((s) => s.label)).toEqual(['committed first', 'registered first']);
    expect(seen[1]?.prev).toBe(seen[0]?.seq);
    const row = await dataSource
      .getRepository(OrderKeyRecordEntity)
      .findOneByOrFail({ orderKey: 'account:a' });
    expect(row.lastPosition).toBe(2);
  });

  it('lock keys in one order, so units of work naming keys in any order neither deadlock nor disagree', async () => {
    const seen: { account: string; label: string }[] = [];
    const handler = defineHandler<AccountMoved>('account.log', (e) => {
      seen.push({ account: e.account, label: e.label });
    });
    const { bus } = await bed.buses.start({
      events: [AccountMoved],
      handlers: { ACCOUNT: [[handler, true]] },
      dataSource,
      config: config(),
      transport: testRedis(),
    });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    const labelsRun = ['p', 'q', 'r', 's', 't', 'u'];
    await Promise.all(
      labelsRun.map((label, i) =>
        uows.run(async (uow) => {
          const accounts = i % 2 === 0 ? ['b', 'c'] : ['c', 'b'];
          for (const account of accounts) {
            uow.register(new SendEventOp(AccountMoved.create({ account, label })));
          }
        }),
      ),
    );
    await bus.whenIdle(10_000);
    const of = (account: string) => seen.filter((s) => s.account === account).map((s) => s.label);
    expect([...of('b')].sort()).toEqual(labelsRun);
    // Both keys saw the units of work in the same (commit) order.
    expect(of('c')).toEqual(of('b'));
    const rows = await dataSource.getRepository(OrderKeyRecordEntity).find({ order: { orderKey: 'ASC' } });
    expect(rows.map((r) => [r.orderKey, r.lastPosition])).toEqual([
      ['account:b', 6],
      ['account:c', 6],
    ]);
  });

  it('wait for an event whose publisher died after commit, and handle it first once a relay sends it', async () => {
    const { seen, handlers } = labels();
    // The dying publisher: commits, then its publish fails; its own relay never runs.
    const dying = bed.buses.create({
      events: [AccountMoved],
      dataSource,
      config: config(DEAD_PUBLISHER),
      transport: testRedis(),
    });
    const publish = dying.transport.publish.bind(dying.transport);
    dying.transport.publish = async () => {
      throw new Error('publisher died between commit and publish');
    };
    await new UnitOfWorkManager({ dataSource, bus: dying }).run(async (uow) => {
      uow.register(new SendEventOp(AccountMoved.create({ account: 'd', label: 'lost at publish' })));
    });
    dying.transport.publish = publish;

    // A healthy process on the same bus name publishes the key's next event at once.
    const cfg = config({ outboxGraceMs: 600, outboxRelayEveryMs: 100, dedupeWindowMs: 60_000 });
    const healthy = bed.buses.create({
      events: [AccountMoved],
      dataSource,
      config: cfg,
      transport: testRedis(),
    });
    await new UnitOfWorkManager({ dataSource, bus: healthy }).run(async (uow) => {
      uow.register(new SendEventOp(AccountMoved.create({ account: 'd', label: 'published at once' })));
    });
    const { bus: worker } = await bed.buses.start({
      events: [AccountMoved],
      handlers,
      config: { ...cfg },
      transport: testRedis(),
    });
    expect(await worker.ordering.pending()).toBe(1);
    expect(seen).toEqual([]);

    // The relay (in the healthy process) sends the first event after the grace period.
    await waitFor('both events handled', () => seen.length === 2, { timeoutMs: 10_000 });
    expect(seen.map((s) => s.label)).toEqual(['lost at publish', 'published at once']);
    expect(seen[1]?.prev).toBe(seen[0]?.seq);
    // The relay deletes its rows in a transaction that may commit after the worker handled the event.
    await waitFor(
      'the outbox to empty',
      async () => (await dataSource.getRepository(OutboxRecordEntity).count()) === 0,
    );
  });

  it('give direct bus.publish calls their positions in a transaction too, so they interleave in order', async () => {
    const { seen, handlers } = labels();
    const { bus } = await bed.buses.start({
      events: [AccountMoved],
      handlers,
      dataSource,
      config: config(),
      transport: testRedis(),
    });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    for (let i = 1; i <= 6; i++) {
      const event = AccountMoved.create({ account: 'e', label: String(i) });
      if (i % 2 === 0) await bus.publish(event);
      else await uows.run(async (uow) => uow.register(new SendEventOp(event)));
    }
    await bus.whenIdle(10_000);
    expect(seen.map((s) => s.label)).toEqual(['1', '2', '3', '4', '5', '6']);
    const row = await dataSource
      .getRepository(OrderKeyRecordEntity)
      .findOneByOrFail({ orderKey: 'account:e' });
    expect(row.lastPosition).toBe(6);
  });

  it('give back the positions of a unit of work that rolls back', async () => {
    const { seen, handlers } = labels();
    const { bus } = await bed.buses.start({
      events: [AccountMoved],
      handlers,
      dataSource,
      config: config(),
      transport: testRedis(),
    });
    const uows = new UnitOfWorkManager({ dataSource, bus });
    await uows.run(async (uow) =>
      uow.register(new SendEventOp(AccountMoved.create({ account: 'f', label: 'kept 1' }))),
    );
    await expect(
      uows.run(async (uow) => {
        uow.register(new SendEventOp(AccountMoved.create({ account: 'f', label: 'rolled back' })));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await uows.run(async (uow) =>
      uow.register(new SendEventOp(AccountMoved.create({ account: 'f', label: 'kept 2' }))),
    );
    await bus.whenIdle(10_000);
    expect(seen.map((s) => s.label)).toEqual(['kept 1', 'kept 2']);
  });

  it('refuse to send ordered events when the DataSource lacks commitbus_order_keys, saying how to fix it', async () => {
    const bare = await connectSchema(SCHEMA, {
      entities: COMMITBUS_ENTITIES.filter((e) => e !== OrderKeyRecordEntity),
    });
    try {
      const bus = bed.buses.create({
        events: [AccountMoved],
        dataSource: bare,
        config: config(),
        transport: testRedis(),
      });
      const attempt = new UnitOfWorkManager({ dataSource: bare, bus }).run(async (uow) => {
        uow.register(new SendEventOp(AccountMoved.create({ account: 'g', label: 'x' })));
      });
      await expect(attempt).rejects.toThrow(OrderingNotConfiguredError);
      await expect(attempt).rejects.toThrow(/run COMMITBUS_MIGRATIONS/);
      expect(await dataSource.getRepository(OutboxRecordEntity).count()).toBe(0);
    } finally {
      await bare.destroy();
    }
  });
});

describe('ordered events on the embedded default (SQLite, in-process transport)', () => {
  it('are handled in commit order with positions from SQLite', async () => {
    const sqlite = await openSqlite([]);
    try {
      const { seen, handlers } = labels();
      const { bus } = await bed.buses.start({
        events: [AccountMoved],
        handlers,
        dataSource: sqlite,
        config: fastConfig({}),
        transport: sqliteTransport({ pollMs: 20 }),
      });
      const uows = new UnitOfWorkManager({ dataSource: sqlite, bus });
      await Promise.all(
        ['1', '2', '3', '4'].map((label) =>
          uows.run(async (uow) =>
            uow.register(new SendEventOp(AccountMoved.create({ account: 'h', label }))),
          ),
        ),
      );
      await bus.whenIdle(10_000);
      expect(seen.map((s) => s.label)).toEqual(['1', '2', '3', '4']);
      const row = await sqlite.getRepository(OrderKeyRecordEntity).findOneByOrFail({ orderKey: 'account:h' });
      expect(row.lastPosition).toBe(4);
    } finally {
      await bed.buses.closeAll();
      await sqlite.destroy();
    }
  });
});
