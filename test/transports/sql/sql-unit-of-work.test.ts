/**
 * A unit of work on the SQL transport's own DataSource, on PostgreSQL and
 * SQLite: `uow.register(new SendEventOp(e))` writes the event row in the
 * unit of work's transaction, before its COMMIT, with no outbox row; the
 * event exists exactly when the business row does. Committed: a worker
 * handles it (woken at once in this process, no poll); rolled back, or
 * refused at COMMIT: it never existed. Many events are one INSERT per
 * table; an id seen within the dedupe window is dropped; a delayed event
 * waits; an ordered event fails the unit of work before anything commits.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  defineHandler,
  type EventBus,
  type EventHandlersConfig,
  SendEventOp,
  type UnitOfWork,
  UnitOfWorkManager,
} from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { FlowStep, flowStep, type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { insertsInto, StatementRecorder } from '../../helpers/sql-statements.js';
import {
  busRows,
  countRows,
  createRecordsTable,
  insertRecord,
  TransactionWindow,
} from '../../helpers/sql-uow.js';
import { waitFor } from '../../helpers/wait-for.js';

const recorder = new StatementRecorder();
const databases = sqlTestDatabases({ logger: recorder });
const buses = new Buses();
afterEach(() => buses.closeAll());
beforeAll(async () => {
  await createRecordsTable(databases.postgres);
  await createRecordsTable(databases.sqlite);
  recorder.attach(databases.postgres);
  recorder.attach(databases.sqlite);
});

let n = 0;

describe.each(['postgres', 'sqlite'] as const)('a unit of work on the SQL transport (%s)', (which) => {
  const dataSource = databases[which];
  const recordExists = async (recid: string) =>
    (await countRows(dataSource, 'tx_records', 'recid = ?', [recid])) === 1;

  /** A bus on the transport with a worker whose `index` handler records what it handled, and its units of work. */
  async function started(options: { pollMs?: number; blockMs?: number } = {}) {
    const name = `sqluow${++n}${which}`;
    const handled: string[] = [];
    const handledAt = new Map<string, number>();
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [
          defineHandler<RecordCreated>('index', (e) => {
            handled.push(e.recid);
            handledAt.set(e.recid, Date.now());
          }),
          true,
        ],
      ],
    };
    const blockMs = options.blockMs ?? 50;
    const config = fastConfig({
      name,
      drains: { blockMs, ttlMs: Math.max(60_000, blockMs * 2) },
      publishing: { delayedPollMs: 20 },
    });
    const { bus } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config,
      transport: sqlTransport({ dataSource, pollMs: options.pollMs ?? 50 }),
      dataSource,
    });
    return { name, bus, handled, handledAt, units: new UnitOfWorkManager({ bus }) };
  }

  /** Commits `recids`' rows and events in one unit of work; resolves to its transaction's statements. */
  async function commit(units: UnitOfWorkManager, recids: readonly string[]): Promise<string[]> {
    const window = new TransactionWindow(recorder);
    await units.run(async (uow) => {
      window.open(uow);
      for (const recid of recids) {
        await insertRecord(uow, recid);
        await uow.register(new SendEventOp(recordCreated(recid)));
      }
      await uow.register(window.closer());
    });
    return window.statements();
  }

  it('commit: the event row is written in the transaction before COMMIT, no outbox row, and a worker handles it', async () => {
    const { name, handled, units } = await started();
    recorder.clear();
    const event = recordCreated('c1');
    const window = new TransactionWindow(recorder);
    let atCommit: Awaited<ReturnType<typeof busRows>> | undefined;
    await units.run(async (uow) => {
      window.open(uow);
      await insertRecord(uow, 'c1');
      await uow.register(new SendEventOp(event));
      await uow.register(window.closer());
      // After COMMIT, before the events' flush: the outbox path would hold its row here.
      await uow.register({
        onCommit: async () => {
          atCommit = await busRows(dataSource, name, [event.id]);
        },
      });
    });
    const statements = window.statements();
    expect(insertsInto(statements, 'commitbus_events')).toBe(1);
    expect(insertsInto(statements, 'commitbus_outbox')).toBe(0);
    const insertAt = statements.findIndex((sql) => insertsInto([sql], 'commitbus_events') === 1);
    expect(insertAt).toBeLessThan(statements.findIndex((sql) => /^\s*COMMIT/i.test(sql)));
    expect(atCommit?.outbox).toBe(0);
    expect(atCommit?.ids).toBe(1);
    await waitFor('the worker to handle c1', () => handled.includes('c1'));
    expect(handled).toEqual(['c1']);
    expect(await recordExists('c1')).toBe(true);
    expect(
      insertsInto(
        recorder.all().map((s) => s.sql),
        'commitbus_outbox',
      ),
    ).toBe(0);
  });

  it('a worker of this process is woken at commit, with no poll to find the row', async () => {
    const claim = /^\s*UPDATE \S*commitbus_events\S* SET locked_by/i;
    const claimsBefore = recorder.completed(claim);
    // Its drain waits 5 s on an empty log, and the poll is as long: only a wake-up ends them sooner.
    // (Not longer: a worker closing while its drain starts a wait sits it out.)
    const { handled, units } = await started({ pollMs: 5_000, blockMs: 5_000 });
    // Its drain found the log empty and waits (a wake-up before that would only reach the next poll).
    await waitFor('the drain to wait', () => recorder.completed(claim) > claimsBefore);
    await commit(units, ['w1']);
    await waitFor('the worker to handle w1', () => handled.includes('w1'), { timeoutMs: 2_500 });
  });

  it('rollback: a unit of work that throws or rolls back leaves no event row, and nothing is handled', async () => {
    const { name, bus, handled, units } = await started();
    const thrown = recordCreated('r1');
    await expect(
      units.run(async (uow) => {
        await insertRecord(uow, 'r1');
        await uow.register(new SendEventOp(thrown));
        throw new Error('the service failed');
      }),
    ).rejects.toThrow('the service failed');
    const rolledBack = recordCreated('r2');
    await units.run(async (uow) => {
      await insertRecord(uow, 'r2');
      await uow.register(new SendEventOp(rolledBack));
      uow.rollback();
    });
    expect(await busRows(dataSource, name, [thrown.id, rolledBack.id])).toEqual({
      events: 0,
      ids: 0,
      outbox: 0,
    });
    // The worker handles the next committed event: had the others existed, it would have handled them first.
    await commit(units, ['r3']);
    await waitFor('the worker to handle r3', () => handled.includes('r3'));
    await bus.whenIdle();
    expect(handled).toEqual(['r3']);
    expect([await recordExists('r1'), await recordExists('r2')]).toEqual([false, false]);
  });

  it('a COMMIT the database refuses (a deferred constraint) leaves no event, and nothing is handled', async () => {
    const { name, bus, handled, units } = await started();
    const db = new SqlDb(dataSource);
    const [parents, children] = [db.table(`tx_parents_${name}`), db.table(`tx_children_${name}`)];
    await db.execute(`CREATE TABLE ${parents} (id integer PRIMARY KEY)`);
    await db.execute(
      `CREATE TABLE ${children} (id integer PRIMARY KEY,
         parent integer REFERENCES ${parents} (id) DEFERRABLE INITIALLY DEFERRED)`,
    );
    const event = recordCreated('f1');
    const refused = units.run(async (uow) => {
      await insertRecord(uow, 'f1');
      // Checked at COMMIT only: every statement before it succeeds, the event row included.
      await db.within(uow.manager).execute(`INSERT INTO ${children} (id, parent) VALUES (1, 404)`);
      await uow.register(new SendEventOp(event));
    });
    await expect(refused).rejects.toThrow(/foreign key/i);
    expect(await busRows(dataSource, name, [event.id])).toEqual({ events: 0, ids: 0, outbox: 0 });
    expect(await countRows(dataSource, `tx_children_${name}`)).toBe(0);
    await commit(units, ['f2']);
    await waitFor('the worker to handle f2', () => handled.includes('f2'));
    await bus.whenIdle();
    expect(handled).toEqual(['f2']);
    expect(await recordExists('f1')).toBe(false);
  });

  it('many events in one unit of work: one INSERT of event rows and one of dedupe ids (one statement on PostgreSQL), all handled', async () => {
    const { handled, units } = await started();
    const recids = Array.from({ length: 50 }, (_, i) => `m${i}`);
    const statements = await commit(units, recids);
    expect(insertsInto(statements, 'commitbus_events')).toBe(1);
    expect(insertsInto(statements, 'commitbus_event_ids')).toBe(1);
    expect(insertsInto(statements, 'commitbus_outbox')).toBe(0);
    await waitFor('all 50 to be handled', () => handled.length === 50);
    expect([...handled].sort()).toEqual([...recids].sort());
  });

  it('an event id accepted within the dedupe window is dropped: handled once', async () => {
    const { name, bus, handled, units } = await started();
    const event = recordCreated('d1');
    for (const recid of ['d1', 'd1-again']) {
      await units.run(async (uow) => {
        await insertRecord(uow, recid);
        await uow.register(new SendEventOp(event));
      });
    }
    await commit(units, ['d2']);
    await waitFor('the worker to handle d2', () => handled.includes('d2'));
    await bus.whenIdle();
    expect(handled.sort()).toEqual(['d1', 'd2']);
    expect(
      await countRows(dataSource, 'commitbus_event_ids', 'bus = ? AND event_id = ?', [name, event.id]),
    ).toBe(1);
  });

  it('a delayed event is handled no earlier than its delay after the commit', async () => {
    const { name, bus, handled, handledAt, units } = await started();
    const delay = 300;
    const before = Date.now();
    await units.run(async (uow) => {
      await insertRecord(uow, 'late1');
      await uow.register(new SendEventOp(recordCreated('late1'), { delay }));
    });
    await waitFor('the delayed event to be handled', () => handled.includes('late1'));
    expect(handledAt.get('late1') ?? 0).toBeGreaterThanOrEqual(before + delay);
    await bus.whenIdle();
    expect(await countRows(dataSource, 'commitbus_events', 'bus = ?', [name])).toBe(0);
  });

  it("ordered events go into their lane in the unit of work's transaction: there on commit, nowhere on rollback", async () => {
    const name = `sqluow${++n}${which}`;
    const published: string[] = [];
    const bus: EventBus = buses.create({
      events: [...TEST_EVENTS, FlowStep],
      config: fastConfig({ name }),
      transport: sqlTransport({ dataSource, pollMs: 50 }),
      dataSource,
      onPublished: (events) => void published.push(...events.map((e) => e.id)),
    });
    const units = new UnitOfWorkManager({ bus });
    const laneRows = () => countRows(dataSource, 'commitbus_lane_events', 'bus = ?', [name]);
    const [plain, first, second] = [
      recordCreated('o1'),
      flowStep('tx-flow', 'o1'),
      flowStep('tx-flow', 'o1b'),
    ];
    await units.run(async (uow: UnitOfWork) => {
      await insertRecord(uow, 'o1');
      await uow.register(new SendEventOp(plain));
      await uow.register(new SendEventOp(first));
      await uow.register(new SendEventOp(second));
    });
    expect(await laneRows()).toBe(2);
    expect(await busRows(dataSource, name, [plain.id])).toMatchObject({ events: 1, outbox: 0 });
    expect(published).toEqual([plain.id, first.id, second.id]);

    const failing = units.run(async (uow: UnitOfWork) => {
      await insertRecord(uow, 'o2');
      await uow.register(new SendEventOp(flowStep('tx-flow', 'o2')));
      throw new Error('rolled back on purpose');
    });
    await expect(failing).rejects.toThrow('rolled back on purpose');
    expect(await laneRows()).toBe(2);
    expect(await recordExists('o2')).toBe(false);
    expect(published).toHaveLength(3);
  });
});
