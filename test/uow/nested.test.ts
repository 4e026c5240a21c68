import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NestedUnitOfWorkFailedError } from '../../src/index.js';
import { Buses } from '../helpers/buses.js';
import { openSqlite, outboxRows, recordingBus } from '../helpers/outbox.js';
import { closeSchema, openSchema } from '../helpers/postgres.js';
import { committedRecids, createRecord, hookRecorder, RecordRow, RecordService } from '../helpers/records.js';

// A nested unit of work joins the outermost (one transaction). When it throws
// and the outer code catches the error, nothing the nested code saw fail may
// commit or be published: the failure poisons the outer unit of work.
const SCHEMA = 'commitbus_test_uow_nested';
const buses = new Buses();
const databases = new Map<string, DataSource>();

beforeAll(async () => {
  databases.set('PostgreSQL', await openSchema(SCHEMA, [RecordRow]));
  databases.set('SQLite', await openSqlite([RecordRow]));
});
afterEach(async () => {
  await buses.closeAll();
  for (const ds of databases.values()) await ds.getRepository(RecordRow).clear();
});
afterAll(async () => {
  await closeSchema(databases.get('PostgreSQL')!);
  await databases.get('SQLite')!.destroy();
});

describe.each(['PostgreSQL', 'SQLite'])(
  'a nested unit of work that throws, caught by the outer one, on %s',
  (name) => {
    const db = () => databases.get(name)!;

    it('rolls the outer unit of work back: no row, no event, rollback hooks, NestedUnitOfWorkFailedError with the nested error as cause', async () => {
      const ds = db();
      const { transport, bus, uows } = recordingBus(buses, ds);
      const calls: string[] = [];
      const count = async () => (await committedRecids(ds)).length;
      const innerFailure = new Error('inner failed');
      const failing = uows.run(async (outer) => {
        outer.register(hookRecorder('A', calls, count));
        await createRecord(outer, 'outer');
        try {
          await uows.run(async (inner) => {
            await createRecord(inner, 'inner');
            throw innerFailure;
          });
        } catch {
          // the outer code carries on, as if the nested work had not happened
        }
        await createRecord(outer, 'after');
        return 'outer done';
      });
      const error = await failing.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NestedUnitOfWorkFailedError);
      expect(error).toMatchObject({ code: 'COMMITBUS_NESTED_UNIT_OF_WORK_FAILED', cause: innerFailure });
      expect((error as Error).message).toMatch(
        /a unit of work started inside this one failed \(inner failed\)/,
      );
      expect(calls).toEqual([
        'A.onRegister',
        expect.stringMatching(/^A\.onException a unit of work started inside this one failed/),
        'A.onRollback rows=0',
        'A.onPostRollback',
      ]);
      expect(transport.attempts).toBe(0);
      expect(await committedRecids(ds)).toEqual([]);
      await bus.outbox?.flush();
      expect(await outboxRows(ds)).toEqual([]);
    });

    it('the same for a @unitOfWork() method given the outer unit of work, and one joining it from the async context', async () => {
      const ds = db();
      const { transport, uows } = recordingBus(buses, ds);
      const service = new RecordService(uows);
      for (const passIn of [true, false]) {
        const error = await uows
          .run(async (outer) => {
            await createRecord(outer, 'outer');
            // 'outer' is taken: the nested create fails on the unique recid, caught here.
            await service.create('outer', passIn ? outer : undefined).catch(() => undefined);
          })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NestedUnitOfWorkFailedError);
      }
      expect(transport.attempts).toBe(0);
      expect(await committedRecids(ds)).toEqual([]);
    });

    it('a nested unit of work that handles its own failure inside does not poison the outer one', async () => {
      const ds = db();
      const { transport, uows } = recordingBus(buses, ds);
      await uows.run(async (outer) => {
        await createRecord(outer, 'outer');
        await uows.run(async (inner) => {
          try {
            throw new Error('handled inside');
          } catch {
            await createRecord(inner, 'inner');
          }
        });
      });
      expect(transport.sent()).toEqual(['RECORD.CREATE:outer', 'RECORD.CREATE:inner']);
      expect(await committedRecids(ds)).toEqual(['outer', 'inner']);
    });
  },
);
