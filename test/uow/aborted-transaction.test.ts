import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TransactionAbortedError, type UnitOfWork } from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { openSqlite, outboxRows, recordingBus } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { committedRecids, createRecord, hookRecorder, RecordRow } from '../helpers/records.js';

// A statement that fails inside a unit of work whose error is caught: PostgreSQL
// aborts the transaction and answers the later COMMIT with ROLLBACK, without an
// error. The unit of work must end as a rollback, with or without the outbox.
const SCHEMA = 'commitbus_test_uow_aborted';
const buses = new Buses();
let pg: DataSource;
let lite: DataSource;

beforeAll(async () => {
  pg = await openSchema(SCHEMA, [RecordRow]);
  lite = await openSqlite([RecordRow]);
});
afterEach(async () => {
  await buses.closeAll();
  for (const ds of [pg, lite]) await ds.getRepository(RecordRow).clear();
});
afterAll(async () => {
  await closeSchema(pg);
  await lite.destroy();
});

/** Writes `a` and its event, then a duplicate of `taken` whose unique violation it catches, as a service might. */
async function swallowDuplicate(uow: UnitOfWork, taken: string): Promise<void> {
  await createRecord(uow, 'a');
  try {
    await uow.manager.insert(RecordRow, { recid: taken });
  } catch {
    // "it already exists, fine"
  }
}

describe.each([
  ['outbox on', {}],
  ['outbox off', { outbox: false }],
] as const)('a caught failure on PostgreSQL (%s)', (_name, config) => {
  it('rolls the unit of work back: rollback hooks, no event, TransactionAbortedError naming the statement that failed first', async () => {
    const { transport, bus, uows } = recordingBus(buses, pg, 0, config);
    await uows.run((uow) => createRecord(uow, 'taken'));
    const calls: string[] = [];
    const count = async () => (await committedRecids(pg)).length;
    const failing = uows.run(async (uow) => {
      uow.register(hookRecorder('A', calls, count));
      await swallowDuplicate(uow, 'taken');
      return 'done';
    });
    const error = await failing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionAbortedError);
    const aborted = error as TransactionAbortedError;
    expect(aborted.code).toBe('COMMITBUS_TRANSACTION_ABORTED');
    expect(aborted.statement).toMatch(/^INSERT INTO "commitbus_test_uow_aborted"\."records"/);
    expect(aborted.message).toMatch(
      /first failed statement: INSERT INTO "commitbus_test_uow_aborted"\."records"/,
    );
    expect(aborted.message).toMatch(/duplicate key value violates unique constraint/);
    expect((aborted.cause as { driverError?: { code?: string } }).driverError?.code).toBe('23505');
    expect(calls).toEqual([
      'A.onRegister',
      expect.stringMatching(/^A\.onException the database rolled back/),
      'A.onRollback rows=1',
      'A.onPostRollback',
    ]);
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken']);
    expect(await committedRecids(pg)).toEqual(['taken']);
    await bus.outbox?.flush();
    expect(await outboxRows(pg)).toEqual([]);
  });

  it('names the first failure even when later statements (the outbox insert, a read) fail with 25P02', async () => {
    const { transport, uows } = recordingBus(buses, pg, 0, config);
    await uows.run((uow) => createRecord(uow, 'taken'));
    const error = await uows
      .run(async (uow) => {
        await swallowDuplicate(uow, 'taken');
        await uow.manager.query('SELECT 1').catch(() => {});
        await createRecord(uow, 'b').catch(() => {});
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionAbortedError);
    expect((error as TransactionAbortedError).statement).toMatch(
      /^INSERT INTO "commitbus_test_uow_aborted"\."records"/,
    );
    expect((error as Error).message).not.toMatch(/current transaction is aborted/);
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken']);
    expect(await committedRecids(pg)).toEqual(['taken']);
  });

  it('a failure caught in an onBeforeCommit hook rolls the unit of work back too', async () => {
    const { transport, uows } = recordingBus(buses, pg, 0, config);
    await uows.run((uow) => createRecord(uow, 'taken'));
    const error = await uows
      .run(async (uow) => {
        uow.register({
          onBeforeCommit: (u) =>
            u.manager.insert(RecordRow, { recid: 'taken' }).then(
              () => undefined,
              () => undefined,
            ),
        });
        await uow.manager.insert(RecordRow, { recid: 'a' });
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionAbortedError);
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken']);
    expect(await committedRecids(pg)).toEqual(['taken']);
  });

  it('a failure caught in an onRegister that does I/O (a RecordCommitOp) rolls the unit of work back too', async () => {
    const { transport, uows } = recordingBus(buses, pg, 0, config);
    await uows.run((uow) => createRecord(uow, 'taken'));
    const calls: string[] = [];
    const error = await uows
      .run(async (uow) => {
        await createRecord(uow, 'a');
        uow.register({
          // Writes its record when registered, and swallows the failure, as an indexing op might.
          onRegister: (u) =>
            u.manager.insert(RecordRow, { recid: 'taken' }).then(
              () => undefined,
              () => undefined,
            ),
          onCommit: () => void calls.push('onCommit'),
          onRollback: () => void calls.push('onRollback'),
        });
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionAbortedError);
    expect((error as TransactionAbortedError).statement).toMatch(
      /^INSERT INTO "commitbus_test_uow_aborted"\."records"/,
    );
    expect(calls).toEqual(['onRollback']);
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken']);
    expect(await committedRecids(pg)).toEqual(['taken']);
  });

  it('a failure undone by a savepoint (uow.manager.transaction) does not abort the unit of work', async () => {
    const { transport, uows } = recordingBus(buses, pg, 0, config);
    await uows.run((uow) => createRecord(uow, 'taken'));
    await uows.run(async (uow) => {
      await createRecord(uow, 'a');
      await uow.manager.transaction((inner) => inner.insert(RecordRow, { recid: 'taken' })).catch(() => {});
      await createRecord(uow, 'b');
    });
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken', 'RECORD.CREATE:a', 'RECORD.CREATE:b']);
    expect(await committedRecids(pg)).toEqual(['taken', 'a', 'b']);
  });
});

describe('a caught failure on SQLite', () => {
  it('does not abort the transaction: the rest of the unit of work commits and its events go out', async () => {
    const { transport, uows } = recordingBus(buses, lite);
    await uows.run((uow) => createRecord(uow, 'taken'));
    await uows.run((uow) => swallowDuplicate(uow, 'taken'));
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken', 'RECORD.CREATE:a']);
    expect(await committedRecids(lite)).toEqual(['taken', 'a']);
  });
});
