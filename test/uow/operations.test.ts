import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Operation, SendEventOp, UnitOfWorkClosedError } from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { openSqlite, outboxRows, recordingBus } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { committedRecids, createRecord, hookRecorder, RecordCreated, RecordRow } from '../helpers/records.js';

// Operations as Invenio's unit-of-work tests use them: an onRegister that does
// I/O (RecordCommitOp), and a unit of work rolled back on purpose (uow.rollback()).
const SCHEMA = 'commitbus_test_uow_operations';
const buses = new Buses();
const databases: [string, DataSource][] = [];

beforeAll(async () => {
  databases.push(
    ['PostgreSQL', await openSchema(SCHEMA, [RecordRow])],
    ['SQLite', await openSqlite([RecordRow])],
  );
});
afterEach(async () => {
  await buses.closeAll();
  for (const [, ds] of databases) await ds.getRepository(RecordRow).clear();
});
afterAll(async () => {
  for (const [name, ds] of databases) await (name === 'PostgreSQL' ? closeSchema(ds) : ds.destroy());
});

/** Invenio's RecordCommitOp: writes its record when registered, then sends its event after commit. */
function recordCommitOp(recid: string, steps: string[]): Operation {
  return {
    async onRegister(uow) {
      steps.push(`writing ${recid}`);
      await uow.manager.query('SELECT 1');
      await uow.manager.insert(RecordRow, { recid });
      steps.push(`wrote ${recid}`);
      uow.register(new SendEventOp(RecordCreated.create({ recid })));
    },
    onCommit: () => void steps.push(`committed ${recid}`),
  };
}

describe.each(['PostgreSQL', 'SQLite'])('an onRegister that does I/O, on %s', (name) => {
  const db = () => databases.find(([n]) => n === name)![1];

  it('is awaited before the commit: its write commits and its event goes out', async () => {
    const ds = db();
    const { transport, uows } = recordingBus(buses, ds);
    const steps: string[] = [];
    await uows.run(async (uow) => {
      uow.register(recordCommitOp('a', steps));
      steps.push('service done');
    });
    expect(steps).toEqual(['writing a', 'service done', 'wrote a', 'committed a']);
    expect(await committedRecids(ds)).toEqual(['a']);
    expect(transport.sent()).toEqual(['RECORD.CREATE:a']);
  });

  it('that fails fails the unit of work with its error: rolled back, rollback hooks, no event, no unhandled rejection', async () => {
    const ds = db();
    const { transport, bus, uows } = recordingBus(buses, ds);
    await uows.run((uow) => createRecord(uow, 'taken'));
    const calls: string[] = [];
    const steps: string[] = [];
    const count = async () => (await committedRecids(ds)).length;
    const failing = uows.run(async (uow) => {
      uow.register(hookRecorder('A', calls, count));
      await createRecord(uow, 'mine');
      uow.register(recordCommitOp('taken', steps));
    });
    await expect(failing).rejects.toThrow(/duplicate key value|UNIQUE constraint failed/);
    expect(steps).toEqual(['writing taken']);
    expect(calls).toEqual([
      'A.onRegister',
      expect.stringMatching(/^A\.onException .*(duplicate key value|UNIQUE constraint failed)/),
      'A.onRollback rows=1',
      'A.onPostRollback',
    ]);
    expect(await committedRecids(ds)).toEqual(['taken']);
    expect(transport.sent()).toEqual(['RECORD.CREATE:taken']);
    await bus.outbox?.flush();
    expect(await outboxRows(ds)).toEqual([]);
  });

  it('register returns its promise: the service can await the write and see its failure at once', async () => {
    const ds = db();
    const { transport, uows } = recordingBus(buses, ds);
    const failure = new Error('index refused the record');
    const seen: unknown[] = [];
    const failing = uows.run(async (uow) => {
      await uow.register({
        async onRegister(u) {
          await u.manager.query('SELECT 1');
        },
      });
      await uow
        .register({
          async onRegister() {
            await Promise.resolve();
            throw failure;
          },
        })
        .catch((error: unknown) => seen.push(error));
      await createRecord(uow, 'a');
    });
    await expect(failing).rejects.toBe(failure);
    expect(seen).toEqual([failure]);
    expect(transport.attempts).toBe(0);
    expect(await committedRecids(ds)).toEqual([]);
  });
});

describe.each(['PostgreSQL', 'SQLite'])('uow.rollback(), on %s', (name) => {
  const db = () => databases.find(([n]) => n === name)![1];

  it('ends the unit of work as a rollback without throwing: run resolves, rollback hooks but no onException, nothing written or sent', async () => {
    const ds = db();
    const { transport, bus, uows } = recordingBus(buses, ds);
    const calls: string[] = [];
    const count = async () => (await committedRecids(ds)).length;
    const result = await uows.run(async (uow) => {
      uow.register(hookRecorder('A', calls, count));
      await createRecord(uow, 'a');
      uow.rollback();
      expect(uow.isOpen).toBe(false);
      return 'dry run done';
    });
    expect(result).toBe('dry run done');
    expect(calls).toEqual(['A.onRegister', 'A.onRollback rows=0', 'A.onPostRollback']);
    expect(transport.attempts).toBe(0);
    expect(await committedRecids(ds)).toEqual([]);
    await bus.outbox?.flush();
    expect(await outboxRows(ds)).toEqual([]);
  });

  it('refuses to register anything after it, and a nested unit of work joins the rolled-back one rather than committing alone', async () => {
    const ds = db();
    const { transport, uows } = recordingBus(buses, ds);
    let refused: unknown;
    let joinedRefused: unknown;
    await uows.run(async (uow) => {
      uow.rollback();
      try {
        uow.register(new SendEventOp(RecordCreated.create({ recid: 'late' })));
      } catch (error) {
        refused = error;
      }
      joinedRefused = await uows
        .run((inner) => createRecord(inner, 'nested'))
        .catch((error: unknown) => error);
    });
    expect(refused).toBeInstanceOf(UnitOfWorkClosedError);
    expect((refused as Error).message).toMatch(/already rolled back/);
    expect(joinedRefused).toBeInstanceOf(UnitOfWorkClosedError);
    expect(transport.attempts).toBe(0);
    expect(await committedRecids(ds)).toEqual([]);
  });
});
