import { setTimeout } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutgoingEvent } from '../../src/events/outgoing-event.js';
import { COMMITBUS_ENTITIES, type EventHandlersConfig, SendEventOp, silentLogger } from '../../src/index.js';
import { Outbox } from '../../src/outbox/outbox.js';
import {
  busConfigs,
  clearOutbox,
  DEAD_PUBLISHER,
  OUTBOX_TEST_EVENTS,
  openSqlite,
  outboxRows,
  recordingBus,
  tapPublishes,
  timedHandlers,
} from '../helpers/outbox.js';
import { closeSchema, connectSchema, openSchema } from '../helpers/postgres.js';
import { Recorder } from '../helpers/recorder.js';
import { committedRecids, createRecord, RecordRow, RecordUpdated } from '../helpers/records.js';
import { streamLength } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

// The transactional outbox: rows written in the unit of work's transaction,
// published after commit, relayed when a publisher left them.
const SCHEMA = 'commitbus_test_outbox';
const { prefix: PREFIX, redis, buses } = redisTestBed('outbox');
const ENTITIES = [RecordRow, ...COMMITBUS_ENTITIES];
const config = busConfigs(PREFIX);
let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await openSchema(SCHEMA, [RecordRow]);
  // Deferred triggers fire at COMMIT, inside the transaction, after the unit of
  // work has written its outbox rows: one copies what the outbox holds then,
  // the other refuses the commit, naming how many rows it saw.
  await dataSource.query(`
    CREATE TABLE ${SCHEMA}.copy_outbox_at_commit (n int);
    CREATE TABLE ${SCHEMA}.refuse_commit (n int);
    CREATE TABLE ${SCHEMA}.outbox_at_commit (
      event_id varchar PRIMARY KEY, created_at bigint, position int, handling_key varchar);
    CREATE FUNCTION ${SCHEMA}.copy_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${SCHEMA}.outbox_at_commit
        SELECT event_id, created_at, position, handling_key FROM ${SCHEMA}.commitbus_outbox
        ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$;
    CREATE FUNCTION ${SCHEMA}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'commit refused with % outbox row(s)',
        (SELECT count(*) FROM ${SCHEMA}.commitbus_outbox);
    END $$;
    CREATE CONSTRAINT TRIGGER copy_outbox AFTER INSERT ON ${SCHEMA}.copy_outbox_at_commit
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${SCHEMA}.copy_outbox();
    CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON ${SCHEMA}.refuse_commit
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${SCHEMA}.refuse();
  `);
});
beforeEach(async () => {
  await dataSource.getRepository(RecordRow).clear();
  await clearOutbox(dataSource);
});
afterAll(() => closeSchema(dataSource));

describe('the outbox on PostgreSQL', () => {
  it('writes the events in the transaction, publishes them once after commit in one publish, then deletes the rows', async () => {
    const { transport, bus, uows } = recordingBus(buses, dataSource);
    const ids: string[] = [];
    await uows.run(async (uow) => {
      ids.push((await createRecord(uow, 'a')).id);
      const update = RecordUpdated.create({ recid: 'a' });
      uow.register(new SendEventOp(update));
      ids.push(update.id, (await createRecord(uow, 'b')).id);
      await uow.manager.query(`INSERT INTO ${SCHEMA}.copy_outbox_at_commit VALUES (1)`);
      expect(transport.attempts).toBe(0);
      // Other connections see nothing of the unit of work before its commit.
      expect(await outboxRows(dataSource)).toEqual([]);
    });
    const atCommit: { event_id: string; created_at: string; position: number; handling_key: string }[] =
      await dataSource.query(`SELECT * FROM ${SCHEMA}.outbox_at_commit ORDER BY position`);
    await dataSource.query(`DELETE FROM ${SCHEMA}.outbox_at_commit`);
    expect(atCommit.map((r) => [r.event_id, r.position, r.handling_key])).toEqual([
      [ids[0], 0, 'RECORD.CREATE'],
      [ids[1], 1, 'RECORD.UPDATE'],
      [ids[2], 2, 'RECORD.CREATE'],
    ]);
    expect(new Set(atCommit.map((r) => r.created_at)).size).toBe(1);

    expect(transport.attempts).toBe(1);
    expect(transport.batches.map((batch) => batch.map((e) => e.id))).toEqual([ids]);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a', 'RECORD.UPDATE:a', 'RECORD.CREATE:b']);
    await bus.outbox?.flush();
    expect(await outboxRows(dataSource)).toEqual([]);
    expect(await committedRecids(dataSource)).toEqual(['a', 'b']);
  });

  it('a COMMIT refused after the rows were written takes them away and publishes nothing', async () => {
    const { transport, bus, uows } = recordingBus(buses, dataSource);
    const failing = uows.run(async (uow) => {
      await createRecord(uow, 'a');
      await uow.manager.query(`INSERT INTO ${SCHEMA}.refuse_commit VALUES (1)`);
    });
    await expect(failing).rejects.toThrow('commit refused with 1 outbox row(s)');
    expect(transport.attempts).toBe(0);
    await bus.outbox?.flush();
    expect(await outboxRows(dataSource)).toEqual([]);
    expect(await committedRecids(dataSource)).toEqual([]);
  });

  it('a unique violation in the unit of work publishes nothing and leaves nothing in the outbox', async () => {
    const { transport, bus, uows } = recordingBus(buses, dataSource);
    await uows.run((uow) => createRecord(uow, 'dup'));
    const failing = uows.run(async (uow) => {
      await createRecord(uow, 'fresh');
      await createRecord(uow, 'dup');
    });
    await expect(failing).rejects.toMatchObject({ driverError: { code: '23505' } });
    expect(transport.sent()).toEqual(['RECORD.CREATE:dup']);
    await bus.outbox?.flush();
    expect(await outboxRows(dataSource)).toEqual([]);
    expect(await committedRecids(dataSource)).toEqual(['dup']);
  });

  it('an event registered twice in one unit of work (e.g. by a nested service call) does not fail the commit', async () => {
    const { transport, bus, uows } = recordingBus(buses, dataSource);
    const event = await uows.run(async (uow) => {
      const created = await createRecord(uow, 'twice');
      uow.register(new SendEventOp(created));
      return created;
    });
    expect(await committedRecids(dataSource)).toEqual(['twice']);
    expect(new Set(transport.batches.flat().map((e) => e.id))).toEqual(new Set([event.id]));
    await bus.outbox?.flush();
    expect(await outboxRows(dataSource)).toEqual([]);
  });

  it('rows a publisher left when it died after commit are relayed by another process once older than outboxGraceMs, and handled once', async () => {
    const grace = 400;
    const dead = recordingBus(buses, dataSource, Number.POSITIVE_INFINITY, {
      ...DEAD_PUBLISHER,
    });
    const ids: string[] = [];
    await dead.uows.run(async (uow) => {
      ids.push((await createRecord(uow, 'left')).id);
      const update = RecordUpdated.create({ recid: 'left' });
      uow.register(new SendEventOp(update));
      ids.push(update.id);
    });
    // One try, no retries: the unit of work resolved with its events in the outbox.
    expect(dead.transport.attempts).toBe(1);
    expect(dead.transport.batches).toEqual([]);
    await dead.bus.close();
    const left = await outboxRows(dataSource);
    expect(left.map((r) => [r.eventId, r.registrationOrder, r.handlingKey, r.deliverAt])).toEqual([
      [ids[0], 0, 'RECORD.CREATE', null],
      [ids[1], 1, 'RECORD.UPDATE', null],
    ]);
    const writtenAt = left[0]?.createdAt ?? Number.NaN;

    const other = await connectSchema(SCHEMA, { entities: ENTITIES });
    try {
      const young = new Outbox(other, { graceMs: 60_000, relayBatchSize: 500 }, silentLogger);
      const tookYoung: OutgoingEvent[][] = [];
      expect(await young.relayOnce(async (events) => void tookYoung.push([...events]))).toBe(0);
      expect(tookYoung).toEqual([]);

      const rec = new Recorder();
      const handledAt = new Map<string, number>();
      const relay = buses.create({
        events: OUTBOX_TEST_EVENTS,
        handlers: timedHandlers(rec, handledAt),
        dataSource: other,
        ...config('redis', { outboxGraceMs: grace, outboxRelayEveryMs: 20 }),
      });
      const publishes = tapPublishes(relay.transport);
      await relay.startWorker({ handleSignals: false });
      await waitFor('both left events to be handled', () => rec.runs.length === 2);
      await relay.whenIdle();
      expect(rec.runs.map((r) => r.eventId)).toEqual(ids);
      expect(publishes.map((p) => p.ids)).toEqual([ids]);
      expect(publishes[0]?.at).toBeGreaterThanOrEqual(writtenAt + grace);
      expect(handledAt.get(ids[0] ?? '')).toBeGreaterThanOrEqual(writtenAt + grace);
      expect(await outboxRows(dataSource)).toEqual([]);
      expect(await committedRecids(dataSource)).toEqual(['left']);
    } finally {
      await buses.closeAll();
      await other.destroy();
    }
  });

  it('three relays on three DataSources share 300 left rows: each published once, in write order per batch, each handled once', async () => {
    const dead = recordingBus(buses, dataSource, Number.POSITIVE_INFINITY, {
      ...DEAD_PUBLISHER,
    });
    for (let i = 0; i < 100; i++) {
      await dead.uows.run(async (uow) => {
        await createRecord(uow, `r${i}`);
        uow.register(new SendEventOp(RecordUpdated.create({ recid: `r${i}` })));
        uow.register(new SendEventOp(RecordUpdated.create({ recid: `r${i}` })));
      });
    }
    await dead.bus.close();
    const left = await outboxRows(dataSource);
    expect(left).toHaveLength(300);
    const ids = left.map((r) => r.eventId);
    const writeOrder = new Map(left.map((r) => [r.eventId, [r.createdAt, r.registrationOrder] as const]));

    const sources = await Promise.all([1, 2, 3].map(() => connectSchema(SCHEMA, { entities: ENTITIES })));
    try {
      const rec = new Recorder();
      const handlers: EventHandlersConfig = { RECORD: [[rec.handler('shared.audit'), true]] };
      const shared = config('redis', {
        outboxGraceMs: 50,
        outboxRelayEveryMs: 20,
        outboxRelayBatchSize: 10,
      });
      // Created in one go, so that the three relays start claiming together.
      const relays = sources.map((source) => {
        const bus = buses.create({
          events: OUTBOX_TEST_EVENTS,
          handlers,
          dataSource: source,
          ...shared,
        });
        return { bus, publishes: tapPublishes(bus.transport) };
      });
      await Promise.all(relays.map(({ bus }) => bus.startWorker({ handleSignals: false })));
      await waitFor('every left event to be handled', () => rec.runs.length >= ids.length, {
        timeoutMs: 20_000,
        describe: () => ({ handled: rec.runs.length }),
      });
      await Promise.all(relays.map(({ bus }) => bus.whenIdle()));

      expect(rec.notRunOnce('shared.audit', ids)).toEqual([]);
      const batches = relays.flatMap((r) => r.publishes);
      expect(batches.flatMap((b) => b.ids).sort()).toEqual([...ids].sort());
      const totals = batches.reduce(
        (sum, b) => ({
          appended: sum.appended + b.result.appended,
          dropped: sum.dropped + b.result.dropped,
        }),
        { appended: 0, dropped: 0 },
      );
      expect(totals).toEqual({ appended: 300, dropped: 0 });
      for (const batch of batches) {
        expect(batch.ids.length).toBeLessThanOrEqual(10);
        const keys = batch.ids.map((id) => writeOrder.get(id) ?? [Number.NaN, Number.NaN]);
        const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(keys).toEqual(sorted);
      }
      const relaysThatPublished = relays.filter((r) => r.publishes.length > 0).length;
      expect(relaysThatPublished, 'the relays should have shared the rows').toBeGreaterThanOrEqual(2);
      // A relay deletes its rows once their publish returned, which can be after their handlers ran.
      await waitFor(
        'the relayed rows to be deleted',
        async () => (await outboxRows(dataSource)).length === 0,
        {
          timeoutMs: 20_000,
          describe: async () => ({ left: (await outboxRows(dataSource)).length }),
        },
      );
      expect(
        await streamLength(redis, relays[0]?.bus.config ?? { redis: { prefix: PREFIX }, name: '?' }),
      ).toBe(0);
    } finally {
      await buses.closeAll();
      await Promise.all(sources.map((source) => source.destroy()));
    }
  });
});

describe('the outbox on SQLite', () => {
  let lite: DataSource;
  beforeEach(async () => {
    lite = await openSqlite([RecordRow]);
  });
  afterEach(async () => {
    await buses.closeAll();
    await lite.destroy();
  });

  it('publishes the events of a unit of work once after commit in one publish and deletes the rows; a rollback writes and publishes nothing', async () => {
    const { transport, bus, uows } = recordingBus(buses, lite);
    await expect(
      uows.run(async (uow) => {
        await createRecord(uow, 'gone');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await outboxRows(lite)).toEqual([]);
    const ids: string[] = [];
    await uows.run(async (uow) => {
      ids.push((await createRecord(uow, 'a')).id, (await createRecord(uow, 'b')).id);
    });
    expect(transport.attempts).toBe(1);
    expect(transport.batches.map((batch) => batch.map((e) => e.id))).toEqual([ids]);
    await bus.outbox?.flush();
    expect(await outboxRows(lite)).toEqual([]);
    expect(await committedRecids(lite)).toEqual(['a', 'b']);
  });

  it('rows a dead publisher left are relayed after the grace period and handled once', async () => {
    const dead = recordingBus(buses, lite, Number.POSITIVE_INFINITY, {
      ...DEAD_PUBLISHER,
    });
    const event = await dead.uows.run((uow) => createRecord(uow, 'left'));
    await dead.bus.close();
    expect((await outboxRows(lite)).map((r) => r.eventId)).toEqual([event.id]);

    const rec = new Recorder();
    const relay = buses.create({
      events: OUTBOX_TEST_EVENTS,
      handlers: { RECORD: [[rec.handler('lite.relayed'), true]] },
      dataSource: lite,
      ...config('sqlite', { outboxGraceMs: 50, outboxRelayEveryMs: 20 }),
    });
    await relay.startWorker({ handleSignals: false });
    await waitFor('the left event to be handled', () => rec.runs.length === 1);
    await waitFor('the outbox to be empty', async () => (await outboxRows(lite)).length === 0);
    await relay.whenIdle();
    expect(rec.runs.map((r) => r.eventId)).toEqual([event.id]);
  });

  it('deleting published rows does not join the transaction of another unit of work on the shared connection', async () => {
    const { bus, uows } = recordingBus(buses, lite);
    await uows.run((uow) => createRecord(uow, 'a'));
    // The next unit of work opens its transaction on SQLite's one connection
    // while the published row's delete is still queued, stays open past the
    // moment that delete is due (it must wait for the gate, not join this
    // transaction), and rolls back.
    await expect(
      uows.run(async (uow) => {
        await createRecord(uow, 'b');
        await setTimeout(100);
        throw new Error('b failed');
      }),
    ).rejects.toThrow('b failed');
    await bus.outbox?.flush();
    expect(await committedRecids(lite)).toEqual(['a']);
    expect(await outboxRows(lite)).toEqual([]);
  });
});
