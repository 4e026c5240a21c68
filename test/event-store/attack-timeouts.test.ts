import { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { EventStoreStepTimeoutError } from '../../src/event-store/index.js';
import { COMMITBUS_ENTITIES, createEventStore, defineModel, EventStoreHaltedError } from '../../src/index.js';
import {
  ATK_ENTITIES,
  type AtkCounter,
  AtkCounterEntity,
  gate,
  writerPid,
} from '../helpers/es-attack-bed.js';
import { attack, attackSuite, counters, type Data, onPg, rows, within } from '../helpers/es-attack-suite.js';
import { forever, hitsAnd, NO_RETRY, version } from '../helpers/es-timeout-attacks.js';
import { PG, resetSchema } from '../helpers/postgres.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { waitFor } from '../helpers/wait-for.js';

// Attacks on the event store's stepTimeoutMs (the writer coming back, where the timeout strikes): a cycle callback that does not settle
// fails its event with EventStoreStepTimeoutError and the store halts at it. Each test asserts
// what should happen, on real PostgreSQL and SQLite.
attackSuite('t');

describe('PostgreSQL: the writer comes back after a step times out', () => {
  it('a deriver running SELECT pg_sleep(10) on ctx.manager: its query is ended, the writer lock moves to a new session, skip goes on', async () => {
    const sleepy = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: { NOTE: (e: Data) => ({ sav: [{ id: e.data.id, n: e.data.n ?? 0, hits: 1 }] }) },
      derive: async ({ event, manager }) => {
        if ((event.data as { n?: number }).n === 9)
          await manager.query('SELECT pg_sleep(10) /* atk-t-sleep */');
      },
    });
    const bed = await onPg([sleepy], { stepTimeoutMs: 500, ...NO_RETRY });
    await bed.store.dispatch('NOTE', { id: 'a', n: 1 });
    const before = await writerPid(bed.dataSource);
    const started = Date.now();
    await expect(bed.store.dispatch('NOTE', { id: 'b', n: 9 })).rejects.toBeInstanceOf(EventStoreHaltedError);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await bed.store.halted()).toMatchObject({
      v: 2,
      attempts: 1,
      error: { step: 'derive', name: EventStoreStepTimeoutError.name, path: ['NOTE'] },
    });
    await waitFor(
      'the sleeping query to be gone from the server',
      async () =>
        (
          await bed.dataSource.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%atk-t-sleep%' AND pid <> pg_backend_pid()`,
          )
        )[0].n === 0,
      { timeoutMs: 3_000 },
    );
    const after = await writerPid(bed.dataSource);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    await bed.store.skip(2, { by: 'test', reason: 'sleeps' });
    await expect(bed.store.dispatch('NOTE', { id: 'c', n: 3 })).resolves.toMatchObject({
      v: 3,
      status: 'handled',
    });
    expect((await rows(bed)).map((r) => r.id)).toEqual(['a', 'c']);
  });

  it('a deriver writing through the DataSource (the README\'s "usual cause") on a pool of 2 still times out and halts', async () => {
    const schema = 'commitbus_test_es_attack_t_pool';
    await resetSchema(schema);
    const dataSource = await new DataSource({
      type: 'postgres',
      ...PG,
      username: PG.user,
      schema,
      entities: [...ATK_ENTITIES, ...COMMITBUS_ENTITIES],
      synchronize: true,
      extra: { max: 2 }, // accepted by the store: "give it at least 2"
    }).initialize();
    const noted = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: { NOTE: (e: Data) => ({ sav: [{ id: e.data.id, n: 1, hits: 1 }] }) },
      derive: async ({ event, manager }) => {
        await manager.query('SELECT 1'); // the batch's writes go out: the writer holds the row lock
        const { id, n } = event.data as { id: string; n?: number };
        if (n === 2) await dataSource.getRepository(AtkCounterEntity).update({ id }, { note: 'derived' });
      },
    });
    const logger = recordingLogger();
    const store = createEventStore({
      dataSource,
      models: [noted],
      logger,
      pollMs: 10,
      takeoverMs: 50,
      stepTimeoutMs: 500,
      ...NO_RETRY,
    });
    attack.extra.push(async () => {
      const pid = await within(1_000, writerPid(dataSource)).catch(() => undefined);
      const admin = await new DataSource({ type: 'postgres', ...PG, username: PG.user }).initialize();
      if (typeof pid === 'number') await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%atk_counters%' AND pid <> pg_backend_pid()`,
      );
      await within(2_000, store.close());
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.destroy();
      await within(2_000, dataSource.destroy());
    });
    await store.start();
    await store.dispatch('NOTE', { id: 'a' });
    const stuck = store.dispatch('NOTE', { id: 'a', n: 2 }).catch((e: unknown) => e);
    // Up to 7b40dca: the timeout fires, but ending the writer's session needs a pool connection, and
    // the pool's other one is the deriver's update, waiting for the writer's row lock: nothing moves
    // until PostgreSQL's idle-in-transaction timeout (writerIdleTimeoutMs, 60 s) ends the writer.
    // (9662452 closes the writer's connection first: passes there.)
    const out = await within(4_000, stuck);
    expect(out).toBeInstanceOf(EventStoreHaltedError);
  });

  it('a step timing out on a writer that has no spare connection: a peer process can take over', async () => {
    // Same deadlock as above, seen from a second process: the stuck writer keeps its advisory lock.
    const schema = 'commitbus_test_es_attack_t_pool_peer';
    await resetSchema(schema);
    const open = (max: number) =>
      new DataSource({
        type: 'postgres',
        ...PG,
        username: PG.user,
        schema,
        entities: [...ATK_ENTITIES, ...COMMITBUS_ENTITIES],
        synchronize: max === 2,
        extra: { max },
      }).initialize();
    const first = await open(2);
    const noted = (ds: DataSource) =>
      defineModel<AtkCounter>({
        entity: AtkCounterEntity,
        reducers: { NOTE: (e: Data) => ({ sav: [{ id: e.data.id, n: 1, hits: 1 }] }) },
        derive: async ({ event, manager }) => {
          await manager.query('SELECT 1');
          const { id, n } = event.data as { id: string; n?: number };
          if (n === 2) await ds.getRepository(AtkCounterEntity).update({ id }, { note: 'derived' });
        },
      });
    const options = {
      logger: recordingLogger(),
      pollMs: 10,
      takeoverMs: 50,
      stepTimeoutMs: 500,
      ...NO_RETRY,
    };
    const a = createEventStore({ dataSource: first, models: [noted(first)], ...options });
    const second = await open(10);
    const b = createEventStore({ dataSource: second, models: [noted(second)], ...options });
    attack.extra.push(async () => {
      const admin = await new DataSource({ type: 'postgres', ...PG, username: PG.user }).initialize();
      const pid = await writerPid(second).catch(() => undefined);
      if (pid !== undefined) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%atk_counters%' AND pid <> pg_backend_pid()`,
      );
      await within(2_000, a.close());
      await within(2_000, b.close());
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.destroy();
      await within(2_000, first.destroy());
      await within(2_000, second.destroy());
    });
    await a.start();
    await a.dispatch('NOTE', { id: 'a' });
    await b.start(); // b waits as a standby
    const stuck = a.dispatch('NOTE', { id: 'a', n: 2 }).catch((e: unknown) => e);
    await within(1_500, stuck);
    // Whoever is the writer now, the store must have moved on: the event recorded as failed.
    const halted = await within(
      3_000,
      waitFor('a halt at v2', async () => (await b.halted())?.v === 2, { timeoutMs: 3_000 }).then(
        () => 'halted',
      ),
    );
    expect(halted).toBe('halted');
  });

  it("a reducer that settles just after the timeout cannot write through ctx.manager or ctx.repository into a later event's transaction", async () => {
    const lateIn = gate();
    const lateGo = gate();
    const attempts: string[] = [];
    const late = defineModel<AtkCounter>({
      name: 'late',
      entity: AtkCounterEntity,
      reducers: {
        LATE: async (_e: Data, { manager, repository }) => {
          lateIn.open();
          await lateGo.promise;
          await manager.query(`INSERT INTO atk_counters (id, n, hits) VALUES ('ghost-sql', 1, 1)`).then(
            () => attempts.push('sql landed'),
            () => attempts.push('sql refused'),
          );
          await repository.save({ id: 'ghost-repo', n: 1, note: null, hits: 1 }).then(
            () => attempts.push('repo landed'),
            () => attempts.push('repo refused'),
          );
          return { sav: [{ id: 'ghost-result', n: 1, hits: 1 }] };
        },
      },
    });
    const bed = await onPg([counters, late], { stepTimeoutMs: 400, ...NO_RETRY });
    await expect(bed.store.dispatch('LATE', { id: 'x' })).rejects.toBeInstanceOf(EventStoreHaltedError);
    await lateIn.promise;
    await bed.store.skip(1, { by: 'test', reason: 'late' });
    // v2 is held in its reducer: its transaction is open on the writer's new connection.
    const held = bed.store.dispatch('SET', { id: 'real', n: 1 });
    await attack.entered.promise;
    lateGo.open();
    await waitFor('the late reducer to try its writes', () => attempts.length === 2);
    attack.hold.open();
    await expect(held).resolves.toMatchObject({ v: 2, status: 'handled' });
    expect((await rows(bed)).map((r) => r.id)).toEqual(['real']);
    expect(attempts).toEqual(['sql refused', 'repo refused']);
  });
});

describe('PostgreSQL: where the timeout strikes', () => {
  it("a sub-event's reducer that hangs: the event halts with the sub-event's path, nothing of it is applied", async () => {
    const tree = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: {
        PARENT: (e: Data) => ({
          sav: [{ id: e.data.id, n: 1, hits: 1 }],
          events: [{ type: 'CHILD', data: e.data }],
        }),
        CHILD: async () => forever(),
      },
    });
    const bed = await onPg([tree], { stepTimeoutMs: 400, ...NO_RETRY });
    await expect(bed.store.dispatch('PARENT', { id: 'p' })).rejects.toBeInstanceOf(EventStoreHaltedError);
    expect(await bed.store.halted()).toMatchObject({
      v: 1,
      attempts: 1,
      status: 'queued',
      error: { step: 'reduce', path: ['PARENT', 'CHILD'], name: 'EventStoreStepTimeoutError' },
    });
    expect(await rows(bed)).toEqual([]);
    expect(await version(bed.store)).toBe(0);
  });

  it("transact's ctx.dispatch of a sub-event whose reducer hangs (the transact even catching it): the event halts on the timeout", async () => {
    const outer = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: {
        OUTER: (e: Data) => ({ sav: [{ id: e.data.id, n: 1, hits: 1 }] }),
        INNER: async () => forever(),
      },
      transact: async ({ event, dispatch }) => {
        if (event.type !== 'OUTER') return;
        await dispatch('INNER', {}).catch(() => undefined); // swallows what it can
      },
    });
    const bed = await onPg([outer], { stepTimeoutMs: 400, ...NO_RETRY });
    await expect(bed.store.dispatch('OUTER', { id: 'o' })).rejects.toBeInstanceOf(EventStoreHaltedError);
    const halted = await bed.store.halted();
    expect(halted).toMatchObject({ v: 1, error: { name: 'EventStoreStepTimeoutError' } });
    expect(['transact', 'reduce']).toContain(halted?.error?.step);
    expect(await rows(bed)).toEqual([]);
  });

  it('v6 of eleven hangs: v1..v5 commit exactly once (listeners once each), v7..v11 wait; a skip then handles them without a gap', async () => {
    const seen: number[] = [];
    const bed = await onPg([counters, hitsAnd()], {
      stepTimeoutMs: 600,
      ...NO_RETRY,
      listeners: [(e) => void seen.push(e.v)],
    });
    // v1 holds the writer while v2..v11 are queued, so that they are read as one batch.
    const v1 = bed.store.dispatch('SET', { id: 's', n: 1 });
    await attack.entered.promise;
    const queued = [];
    for (let i = 0; i < 4; i++) queued.push(await bed.store.dispatch('HIT', { id: 'a' }, { wait: false }));
    queued.push(await bed.store.dispatch('HANG', { id: 'h', hang: true }, { wait: false }));
    for (let i = 0; i < 5; i++) queued.push(await bed.store.dispatch('HIT', { id: 'a' }, { wait: false }));
    expect(queued.map((e) => e.v)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    attack.hold.open();
    await v1;
    await waitFor('the halt at v6', async () => (await bed.store.halted())?.v === 6);
    expect(await version(bed.store)).toBe(5);
    expect(await rows(bed)).toMatchObject([
      { id: 'a', n: 4 },
      { id: 's', n: 1 },
    ]);
    const history = await bed.store.history(1, 11);
    expect(history.map((e) => [e.v, e.status, e.attempts])).toEqual([
      [1, 'handled', 0],
      [2, 'handled', 0],
      [3, 'handled', 0],
      [4, 'handled', 0],
      [5, 'handled', 0],
      [6, 'queued', 1],
      [7, 'queued', 0],
      [8, 'queued', 0],
      [9, 'queued', 0],
      [10, 'queued', 0],
      [11, 'queued', 0],
    ]);
    await bed.store.skip(6, { by: 'test', reason: 'hangs' });
    await waitFor('v11', async () => (await version(bed.store)) === 11);
    expect(await rows(bed)).toMatchObject([
      { id: 'a', n: 9 },
      { id: 's', n: 1 },
    ]);
    await waitFor('the listeners', () => seen.length >= 10);
    expect(seen).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10, 11]);
  });
});
