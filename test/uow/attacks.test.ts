import pg from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TransactionAbortedError, type UnitOfWork, UnitOfWorkClosedError } from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { openSqlite, outboxRows, recordingBus } from '../helpers/outbox.js';
import { closeSchema, openSchema, PG } from '../helpers/postgres.js';
import { committedRecids, createRecord, hookRecorder, RecordRow } from '../helpers/records.js';

// What can go wrong in a unit of work on real databases: a constraint checked
// only at COMMIT, a statement timeout, the connection killed mid-unit and at
// COMMIT. Each must reject with a coded error, publish nothing and run the
// rollback hooks. Then onRegister that throws at once, rollback() twice or
// after a nested failure, register after commit.
const SCHEMA = 'commitbus_test_uow_attacks';
const buses = new Buses();
let db: DataSource;
let lite: DataSource;

beforeAll(async () => {
  db = await openSchema(SCHEMA, [RecordRow]);
  lite = await openSqlite([RecordRow]);
  // A check run at COMMIT: recid 'deferred-bad' is refused only then; 'slow-commit' makes COMMIT sleep.
  await db.query(`
    CREATE FUNCTION ${SCHEMA}.check_record() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.recid = 'deferred-bad' THEN RAISE EXCEPTION 'refused at commit' USING ERRCODE = '23514'; END IF;
      IF NEW.recid = 'slow-commit' THEN PERFORM pg_sleep(5); END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER check_record AFTER INSERT ON ${SCHEMA}.records
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${SCHEMA}.check_record();`);
});
afterEach(async () => {
  await buses.closeAll();
  await db.getRepository(RecordRow).clear();
  await lite.getRepository(RecordRow).clear();
});
afterAll(async () => {
  await closeSchema(db);
  await lite.destroy();
});

/** Terminates the backend `pid` from another connection. */
async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client(PG);
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

async function backendPid(uow: UnitOfWork): Promise<number> {
  const rows = (await uow.manager.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
  return rows[0]?.pid ?? 0;
}

/** Runs `fn` in a unit of work with a hook recorder; what it rejected with, the hooks, the events sent. */
async function attempt(config: object, fn: (uow: UnitOfWork) => Promise<unknown>) {
  const { transport, bus, uows } = recordingBus(buses, db, 0, config);
  const calls: string[] = [];
  const error = await uows
    .run(async (uow) => {
      uow.register(hookRecorder('A', calls, async () => 0));
      await createRecord(uow, 'a');
      await fn(uow);
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  await bus.outbox?.flush();
  return { error, calls: calls.map((c) => c.split(' ')[0]), sent: transport.sent(), uows };
}

const ROLLED_BACK = ['A.onRegister', 'A.onException', 'A.onRollback', 'A.onPostRollback'];

describe.each([
  ['outbox on', {}],
  ['outbox off', { outbox: false }],
] as const)('on PostgreSQL (%s)', (_name, config) => {
  it('a deferred constraint refused at COMMIT: its error, rollback hooks, nothing committed or sent', async () => {
    const { error, calls, sent } = await attempt(config, (uow) => createRecord(uow, 'deferred-bad'));
    expect((error as { code?: string }).code).toBe('23514');
    expect(calls).toEqual(ROLLED_BACK);
    expect(sent).toEqual([]);
    expect(await committedRecids(db)).toEqual([]);
    expect(await outboxRows(db)).toEqual([]);
  });

  it('a statement timeout caught inside the unit: TransactionAbortedError, nothing sent', async () => {
    const { error, calls, sent } = await attempt(config, async (uow) => {
      await uow.manager.query(`SET LOCAL statement_timeout = '50ms'`);
      await uow.manager.query('SELECT pg_sleep(1)').catch(() => {});
    });
    expect(error).toBeInstanceOf(TransactionAbortedError);
    expect(calls).toEqual(ROLLED_BACK);
    expect(sent).toEqual([]);
    expect(await committedRecids(db)).toEqual([]);
  });

  it('the connection killed mid-unit, its error caught: a coded error, rollback hooks, nothing sent', async () => {
    const { error, calls, sent } = await attempt(config, async (uow) => {
      const pid = await backendPid(uow);
      const sleeping = uow.manager.query('SELECT pg_sleep(5)').catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
      await terminate(pid);
      await sleeping;
    });
    expect(typeof (error as { code?: unknown }).code).toBe('string');
    expect(calls).toEqual(ROLLED_BACK);
    expect(sent).toEqual([]);
    expect(await committedRecids(db)).toEqual([]);
  });

  it('the connection killed while idle in the unit: a coded error, rollback hooks, nothing sent', async () => {
    const { error, calls, sent } = await attempt(config, async (uow) => {
      await terminate(await backendPid(uow));
      await new Promise((r) => setTimeout(r, 200));
    });
    // Not TypeORM's "query runner already released": the server's reason (admin_shutdown).
    expect((error as { code?: unknown }).code).toBe('57P01');
    expect(calls).toEqual(ROLLED_BACK);
    expect(sent).toEqual([]);
    expect(await committedRecids(db)).toEqual([]);
  });

  it('the connection killed during COMMIT: a coded error, rollback hooks, nothing sent', async () => {
    let pid = 0;
    const running = attempt(config, async (uow) => {
      pid = await backendPid(uow);
      await createRecord(uow, 'slow-commit');
    });
    await new Promise((r) => setTimeout(r, 1_000));
    await terminate(pid);
    const { error, calls, sent } = await running;
    expect(typeof (error as { code?: unknown }).code).toBe('string');
    expect(calls).toEqual(ROLLED_BACK);
    expect(sent).toEqual([]);
    expect(await committedRecids(db)).toEqual([]);
  });
});

describe.each([
  ['older pg without getTransactionStatus', undefined],
  [
    'a native client whose pg-native cannot tell',
    () => {
      throw new TypeError('this.native.getTransactionStatus is not a function');
    },
  ],
] as const)('on PostgreSQL with %s', (_name, stand) => {
  const proto = pg.Client.prototype as { getTransactionStatus?: unknown };
  const real = proto.getTransactionStatus;
  beforeAll(() => {
    proto.getTransactionStatus = stand;
  });
  afterAll(() => {
    proto.getTransactionStatus = real;
  });

  it('a caught failure still rolls the unit of work back with TransactionAbortedError', async () => {
    await recordingBus(buses, db).uows.run((uow) => createRecord(uow, 'taken'));
    const { error, calls, sent } = await attempt({}, async (uow) => {
      await uow.manager.insert(RecordRow, { recid: 'taken' }).catch(() => {});
    });
    expect(error).toBeInstanceOf(TransactionAbortedError);
    expect(calls).toEqual(ROLLED_BACK);
    expect(sent).toEqual([]);
    expect(await committedRecids(db)).toEqual(['taken']);
  });

  it('a failure undone by a savepoint still commits', async () => {
    const { error, sent } = await attempt({}, async (uow) => {
      await uow.manager.transaction((m) => m.query('SELECT 1/0')).catch(() => {});
    });
    expect(error).toBeUndefined();
    expect(sent).toEqual(['RECORD.CREATE:a']);
  });
});

describe.each([
  ['PostgreSQL', () => db],
  ['SQLite', () => lite],
] as const)('on %s', (_name, ds) => {
  it('onRegister that throws at once: register throws it (not a rejection), the operation is not registered, and a caller that catches it commits', async () => {
    const { transport, uows } = recordingBus(buses, ds());
    const boom = new Error('boom');
    const thrown: unknown[] = [];
    await uows.run(async (uow) => {
      await createRecord(uow, 'a');
      try {
        // Not awaited: a sync throw, as argument checks (InvalidDeliveryOptionsError) are.
        void uow.register({
          onRegister: () => {
            throw boom;
          },
          onCommit: () => void thrown.push('registered anyway'),
        });
      } catch (error) {
        thrown.push(error);
      }
    });
    expect(thrown).toEqual([boom]);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a']);
    expect(await committedRecids(ds())).toEqual(['a']);
  });

  it('rollback() twice, and after a caught nested failure: resolves, rollback hooks once, nothing sent', async () => {
    const { transport, uows } = recordingBus(buses, ds());
    const calls: string[] = [];
    const result = await uows.run(async (uow) => {
      uow.register(hookRecorder('A', calls, async () => 0));
      await createRecord(uow, 'a');
      await uows.run(() => Promise.reject(new Error('inner'))).catch(() => {});
      uow.rollback();
      uow.rollback();
      return 'kept';
    });
    expect(result).toBe('kept');
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['A.onRegister', 'A.onRollback', 'A.onPostRollback']);
    expect(transport.sent()).toEqual([]);
    expect(await committedRecids(ds())).toEqual([]);
  });

  it('rollback() in a nested unit of work rolls back the outermost, whose run resolves', async () => {
    const { transport, uows } = recordingBus(buses, ds());
    const result = await uows.run(async () => {
      await uows.run((outer) => createRecord(outer, 'a'));
      await uows.run(async (inner) => inner.rollback());
      return 'outer done';
    });
    expect(result).toBe('outer done');
    expect(transport.sent()).toEqual([]);
    expect(await committedRecids(ds())).toEqual([]);
  });

  it('an async onRegister of an operation registered from onBeforeCommit is awaited: its failure fails the unit', async () => {
    const { transport, uows } = recordingBus(buses, ds());
    const late = new Error('late onRegister failed');
    const error = await uows
      .run(async (uow) => {
        await createRecord(uow, 'a');
        uow.register({
          onBeforeCommit: (u) => {
            void u.register({
              onRegister: () => new Promise((_, reject) => setTimeout(() => reject(late), 50)),
            });
          },
        });
      })
      .catch((e: unknown) => e);
    expect(error).toBe(late);
    expect(transport.sent()).toEqual([]);
    expect(await committedRecids(ds())).toEqual([]);
  });

  it('register after commit throws UnitOfWorkClosedError', async () => {
    const { uows } = recordingBus(buses, ds());
    const kept = await uows.run(async (uow) => uow);
    expect(() => kept.register({})).toThrow(UnitOfWorkClosedError);
  });
});
