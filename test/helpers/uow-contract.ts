import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  EventBus,
  InvalidEventFieldError,
  SendEventOp,
  silentLogger,
  UnitOfWorkManager,
  withUnitOfWork,
} from '../../src/index.js';
import {
  committedRecids,
  createRecord,
  RecordCreated,
  RecordingTransport,
  RecordRow,
  RecordUpdated,
} from './records.js';

/** How the contract reaches one database. */
export interface ContractDatabase {
  /** Opens a DataSource with `RecordRow` synchronized. */
  open(): Promise<DataSource>;
  /** Closes it and drops what `open` created. */
  close(dataSource: DataSource): Promise<void>;
  /** How this driver words a unique violation. */
  uniqueViolation: RegExp;
}

/**
 * The unit-of-work behaviour every supported database must show: publish after
 * commit (once, in order), nothing after rollback, nested units join the
 * outermost.
 */
export function describeUnitOfWorkContract(name: string, db: ContractDatabase): void {
  describe(`unit of work on ${name}`, () => {
    let dataSource: DataSource;
    let transport: RecordingTransport;
    let bus: EventBus;
    let uows: UnitOfWorkManager;
    const rows = () => committedRecids(dataSource);

    beforeAll(async () => {
      dataSource = await db.open();
    });
    beforeEach(async () => {
      await dataSource.getRepository(RecordRow).clear();
      transport = new RecordingTransport();
      bus = new EventBus({ events: [RecordCreated, RecordUpdated], logger: silentLogger }, transport);
      uows = new UnitOfWorkManager({ dataSource, bus });
    });
    afterEach(() => bus.close());
    afterAll(() => db.close(dataSource));

    it('publishes every event once after commit, in registration order, in one publish', async () => {
      const registered: string[] = [];
      await withUnitOfWork({ dataSource, bus }, async (uow) => {
        registered.push((await createRecord(uow, 'a')).id);
        const update = RecordUpdated.create({ recid: 'a' });
        uow.register(new SendEventOp(update));
        registered.push(update.id, (await createRecord(uow, 'b')).id);
        expect(transport.batches).toEqual([]);
      });
      expect(transport.batches).toHaveLength(1);
      expect(transport.sent()).toEqual(['RECORD.CREATE:a', 'RECORD.UPDATE:a', 'RECORD.CREATE:b']);
      expect(transport.batches[0]?.map((e) => e.id)).toEqual(registered);
      expect(await rows()).toEqual(['a', 'b']);
    });

    it('rolls back on an exception: nothing published, no row', async () => {
      await expect(
        uows.run(async (uow) => {
          await createRecord(uow, 'a');
          throw new Error('service failed');
        }),
      ).rejects.toThrow('service failed');
      expect(transport.attempts).toBe(0);
      expect(await rows()).toEqual([]);
    });

    it('rolls back on a unique violation and publishes nothing', async () => {
      await uows.run((uow) => createRecord(uow, 'dup'));
      await expect(
        uows.run(async (uow) => {
          await createRecord(uow, 'fresh');
          await createRecord(uow, 'dup');
        }),
      ).rejects.toThrow(db.uniqueViolation);
      expect(transport.sent()).toEqual(['RECORD.CREATE:dup']);
      expect(await rows()).toEqual(['dup']);
    });

    it('refuses at registration an event JSON would change (invalid createdAt, NaN): rolled back, nothing published', async () => {
      for (const bad of [
        RecordUpdated.create({ recid: 'a', createdAt: new Date('x') }),
        RecordUpdated.create({ recid: Number.NaN as unknown as string }),
      ]) {
        const refused = await uows
          .run(async (uow) => {
            await createRecord(uow, 'a');
            uow.register(new SendEventOp(bad));
          })
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(InvalidEventFieldError);
        expect(refused).toMatchObject({ code: 'COMMITBUS_INVALID_EVENT_FIELD', eventId: bad.id });
        expect((refused as Error).message).toMatch(
          /^event RECORD\.UPDATE \S+ cannot be sent: field (createdAt|recid) /,
        );
      }
      expect(transport.attempts).toBe(0);
      expect(await rows()).toEqual([]);
    });

    it('nested units of work join the outermost and publish once, after it commits', async () => {
      const otherManager = new UnitOfWorkManager({ dataSource, bus });
      await uows.run(async (outer) => {
        await createRecord(outer, 'a');
        const inner = await otherManager.run(async (uow) => {
          await createRecord(uow, 'b');
          return uow;
        });
        expect(inner).toBe(outer);
        expect(outer.isOpen).toBe(true);
        expect(transport.batches).toEqual([]);
      });
      expect(transport.batches).toHaveLength(1);
      expect(transport.sent()).toEqual(['RECORD.CREATE:a', 'RECORD.CREATE:b']);
      expect(await rows()).toEqual(['a', 'b']);
    });

    it('an exception in a nested unit of work rolls back the outermost', async () => {
      await expect(
        uows.run(async (outer) => {
          await createRecord(outer, 'a');
          await uows.run(async (uow) => {
            await createRecord(uow, 'b');
            throw new Error('inner failed');
          });
        }),
      ).rejects.toThrow('inner failed');
      expect(transport.attempts).toBe(0);
      expect(await rows()).toEqual([]);
    });

    it('units of work run one after another each publish their own events', async () => {
      await uows.run((uow) => createRecord(uow, 'a'));
      await uows.run((uow) => createRecord(uow, 'b'));
      expect(transport.batches.map((batch) => batch.map((e) => e.recid))).toEqual([['a'], ['b']]);
    });
  });
}
