import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { HandledEventEntity } from '../../src/idempotency/handled-event.entity.js';
import { IdempotentRunner } from '../../src/idempotency/idempotent-runner.js';
import {
  defineHandler,
  type EventBus,
  type EventHandlersConfig,
  IdempotencyNotConfiguredError,
  SendEventOp,
} from '../../src/index.js';
import { memoryTransport } from '../../src/transports/memory/index.js';
import { fastConfig } from '../helpers/buses.js';
import { type IdempotentSetup, idempotentBed } from '../helpers/idempotent-bed.js';
import { RecordCreated, RecordRow, RecordUpdated } from '../helpers/records.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = idempotentBed('commitbus_test_idempotent');
const { buses } = bed;

/** Body runs of each handler, by event id. */
class Runs {
  readonly bodies: string[] = [];
  count(eventId: string): number {
    return this.bodies.filter((id) => id === eventId).length;
  }
}

/** A handler that writes the event's recid as a row through ctx.uow, then maybe throws. */
function recordWriter(runs: Runs, failFirst = 0) {
  let failures = 0;
  return defineHandler<RecordCreated>('records.write', async (event, ctx) => {
    runs.bodies.push(event.id);
    if (ctx.uow === undefined) throw new Error('an idempotent handler gets a unit of work');
    await ctx.uow.manager.getRepository(RecordRow).insert({ recid: event.recid });
    if (failures < failFirst) {
      failures++;
      throw new Error(`failing after the write (${failures})`);
    }
  });
}

const recids = async (ds: DataSource) =>
  (await ds.getRepository(RecordRow).find({ order: { id: 'ASC' } })).map((r) => r.recid);

const setups: IdempotentSetup[] = [bed.onPostgres, bed.onSqlite];

for (const setup of setups) {
  describe(`idempotent handlers on ${setup.name}`, () => {
    async function start(handlers: EventHandlersConfig): Promise<EventBus> {
      const prefix = bed.prefix('idempotent');
      const { bus } = await buses.start({
        events: [RecordCreated, RecordUpdated],
        handlers,
        ...setup.config(prefix),
        dataSource: setup.source(),
      });
      return bus;
    }

    for (const sync of [false, true]) {
      it(`a redelivered event skips a ${sync ? 'sync' : 'async'} idempotent handler: one body run, one row, one record`, async () => {
        const runs = new Runs();
        const plainRuns: string[] = [];
        const plain = defineHandler('plain.count', (event) => {
          plainRuns.push(event.id);
        });
        const bus = await start({
          'RECORD.CREATE': [{ handler: recordWriter(runs), sync, idempotent: true }, [plain, sync]],
        });
        const event = RecordCreated.create({ recid: 'once' });
        await bus.publish(event);
        await bus.whenIdle();
        // Delivered again past the transport's dedupe, as after an outage longer than its window.
        await bus.transport.publish([{ id: event.id, payload: bus.encode(event).payload, skipDedupe: true }]);
        await bus.whenIdle();
        expect(plainRuns).toEqual([event.id, event.id]);
        expect(runs.count(event.id)).toBe(1);
        expect(await recids(setup.source())).toEqual(['once']);
        const records = await setup.source().getRepository(HandledEventEntity).find();
        expect(records.map((r) => [r.eventId, r.handler])).toEqual([[event.id, 'records.write']]);
      });
    }

    it('a run that throws after writing rolls its writes and its record back; the retry commits both once', async () => {
      const runs = new Runs();
      const bus = await start({
        'RECORD.CREATE': [{ handler: recordWriter(runs, 1), idempotent: true, attempts: 3 }],
      });
      const event = RecordCreated.create({ recid: 'retried' });
      await bus.publish(event);
      await bus.whenIdle();
      expect(runs.count(event.id)).toBe(2);
      expect(await recids(setup.source())).toEqual(['retried']);
      expect(await setup.source().getRepository(HandledEventEntity).countBy({ eventId: event.id })).toBe(1);
    });

    it('events registered in ctx.uow are published after the run commits, through the outbox', async () => {
      const followUps: string[] = [];
      const writer = defineHandler<RecordCreated>('records.write-and-follow', async (event, ctx) => {
        await ctx.uow?.manager.getRepository(RecordRow).insert({ recid: event.recid });
        ctx.uow?.register(new SendEventOp(RecordUpdated.create({ recid: event.recid })));
      });
      const follow = defineHandler<RecordUpdated>('records.follow', (event) => {
        followUps.push(event.recid);
      });
      const bus = await start({
        'RECORD.CREATE': [{ handler: writer, idempotent: true }],
        'RECORD.UPDATE': [follow],
      });
      await bus.publish(RecordCreated.create({ recid: 'chained' }));
      await waitFor('the follow-up event to be handled', () => followUps.length === 1);
      await bus.whenIdle();
      expect(followUps).toEqual(['chained']);
      expect(await recids(setup.source())).toEqual(['chained']);
      await bus.outbox?.flush();
      expect(await bus.outbox?.pending()).toBe(0);
    });
  });
}

describe('idempotent handlers, configuration and upkeep', () => {
  it('a worker with an idempotent handler and no dataSource refuses to start, naming the handler', async () => {
    const bus = buses.create({
      events: [RecordCreated],
      handlers: { 'RECORD.CREATE': [{ handler: recordWriter(new Runs()), idempotent: true }] },
      config: fastConfig({}),
      transport: memoryTransport(),
    });
    const starting = bus.startWorker({ handleSignals: false });
    await expect(starting).rejects.toBeInstanceOf(IdempotencyNotConfiguredError);
    await expect(starting).rejects.toThrow(
      /records\.write is idempotent .*pass dataSource to createEventBus/,
    );
  });

  it('concurrent runs of the same (event, handler) commit one body run: the second waits on the record and skips', async () => {
    const bus = buses.create({
      events: [RecordCreated],
      config: fastConfig({}),
      transport: memoryTransport(),
    });
    const runner = new IdempotentRunner(bed.onPostgres.source(), bus);
    let bodies = 0;
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = runner.run('evt-concurrent', 'h', async (uow) => {
      bodies++;
      await uow.manager.getRepository(RecordRow).insert({ recid: 'concurrent' });
      await firstHolds;
    });
    await waitFor('the first run to hold its record', () => bodies === 1);
    const second = runner.run('evt-concurrent', 'h', async () => {
      bodies++;
    });
    releaseFirst();
    expect(await first).toBe('ran');
    expect(await second).toBe('skipped');
    expect(bodies).toBe(1);
    expect(await recids(bed.onPostgres.source())).toEqual(['concurrent']);
  });

  it('forgetOlderThan deletes completion records past the retention and keeps newer ones', async () => {
    const bus = buses.create({
      events: [RecordCreated],
      config: fastConfig({}),
      transport: memoryTransport(),
    });
    const runner = new IdempotentRunner(bed.onPostgres.source(), bus);
    const repo = bed.onPostgres.source().getRepository(HandledEventEntity);
    await repo.insert([
      { eventId: 'old', handler: 'h', handledAt: Date.now() - 10_000 },
      { eventId: 'new', handler: 'h', handledAt: Date.now() },
    ]);
    expect(await runner.forgetOlderThan(5_000)).toBe(1);
    expect((await repo.find()).map((r) => r.eventId)).toEqual(['new']);
    expect(await runner.isDone('new', 'h')).toBe(true);
    expect(await runner.isDone('old', 'h')).toBe(false);
  });
});
