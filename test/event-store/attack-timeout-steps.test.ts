import { describe, expect, it } from 'vitest';
import { EventStoreUsageError } from '../../src/event-store/index.js';
import { COMMITBUS_ENTITIES, createEventStore, defineModel, EventStoreHaltedError } from '../../src/index.js';
import {
  ATK_ENTITIES,
  type AtkCounter,
  AtkCounterEntity,
  gate,
  writerPid,
} from '../helpers/es-attack-bed.js';
import {
  attack,
  attackSuite,
  counters,
  type Data,
  onPg,
  onSqlite,
  rows,
  within,
} from '../helpers/es-attack-suite.js';
import { forever, hitsAnd, NO_RETRY, replayHangs, version } from '../helpers/es-timeout-attacks.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { waitFor } from '../helpers/wait-for.js';

// Attacks on the event store's stepTimeoutMs (each kind of step, operators, replay, close, options): a cycle callback that does not settle
// fails its event with EventStoreStepTimeoutError and the store halts at it. Each test asserts
// what should happen, on real PostgreSQL and SQLite.
attackSuite('u');

describe('PostgreSQL: each kind of step', () => {
  it('a preprocessor, a custom apply step and a deriver that hang each halt their event with their step named', async () => {
    type Where = { id: string; where?: string };
    const hangAt = (step: string, e: { data: unknown }) =>
      (e.data as Where).where === step ? forever() : Promise.resolve();
    const stepped = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      preprocess: async (e) => {
        await hangAt('preprocess', e);
        return undefined;
      },
      reducers: { STEP: (e: Data) => ({ sav: [{ id: e.data.id, n: 1, hits: 1 }] }) },
      applyResult: async (result, { repository }) => {
        const row = result.sav?.[0] as AtkCounter;
        if (row.id === 'apply') await forever();
        await repository.save({ ...row, note: null });
      },
      derive: async ({ event }) => hangAt('derive', event),
    });
    const bed = await onPg([stepped], { stepTimeoutMs: 300, ...NO_RETRY });
    let v = 0;
    for (const where of ['preprocess', 'apply', 'derive']) {
      v++;
      const id = where === 'apply' ? 'apply' : where;
      await expect(bed.store.dispatch('STEP', { id, where })).rejects.toBeInstanceOf(EventStoreHaltedError);
      expect(await bed.store.halted()).toMatchObject({
        v,
        error: { step: where, name: 'EventStoreStepTimeoutError' },
      });
      await bed.store.skip(v, { by: 'test' });
    }
    await expect(bed.store.dispatch('STEP', { id: 'ok' })).resolves.toMatchObject({
      v: 4,
      status: 'handled',
    });
    expect((await rows(bed)).map((r) => r.id)).toEqual(['ok']);
  });

  it('a step that hangs only when its batch is redone with savepoints (after a later event failed) halts there; the events before it commit once', async () => {
    let hitRuns = 0;
    const model = hitsAnd({
      SECOND_RUN_HANGS: async (e: Data) => {
        hitRuns++;
        if (hitRuns === 2) await forever();
        return { sav: [{ id: e.data.id, n: 50, hits: 1 }] };
      },
      BAD: async () => {
        throw new Error('bad');
      },
    });
    const bed = await onPg([counters, model], { stepTimeoutMs: 400, ...NO_RETRY });
    const v1 = bed.store.dispatch('SET', { id: 's', n: 1 });
    await attack.entered.promise;
    await bed.store.dispatch('HIT', { id: 'a' }, { wait: false });
    await bed.store.dispatch('SECOND_RUN_HANGS', { id: 'r' }, { wait: false });
    await bed.store.dispatch('BAD', { id: 'b' }, { wait: false });
    attack.hold.open();
    await v1;
    await waitFor('the halt at v3', async () => (await bed.store.halted())?.v === 3);
    expect(await bed.store.halted()).toMatchObject({
      attempts: 1,
      error: { name: 'EventStoreStepTimeoutError' },
    });
    expect(await version(bed.store)).toBe(2);
    expect(await rows(bed)).toMatchObject([{ id: 'a', n: 1 }, { id: 's' }]);
    expect((await bed.store.history(4, 4))[0]).toMatchObject({ status: 'queued', attempts: 0 });
  });
});

describe('PostgreSQL: operators on a timed-out event', () => {
  it('correct() making it fast, after the halt: it is handled with the new data', async () => {
    const bed = await onPg([hitsAnd()], { stepTimeoutMs: 400, ...NO_RETRY });
    await expect(bed.store.dispatch('HANG', { id: 'h', hang: true })).rejects.toBeInstanceOf(
      EventStoreHaltedError,
    );
    await bed.store.correct(1, { id: 'h', hang: false }, { by: 'test', reason: 'no hang' });
    await expect(
      within(
        3_000,
        bed.store.handledVersion(1).then(() => 'done'),
      ),
    ).resolves.toBe('done');
    const [row] = await bed.store.history(1, 1);
    expect(row).toMatchObject({ status: 'handled', data: { id: 'h', hang: false } });
    expect(await rows(bed)).toMatchObject([{ id: 'h', n: 100 }]);
  });

  it('retry() after the hang was fixed (the callback now settles): handled', async () => {
    let hangs = true;
    const flaky = defineModel<AtkCounter>({
      entity: AtkCounterEntity,
      reducers: {
        FLAKY: async (e: Data) => {
          if (hangs) await forever();
          return { sav: [{ id: e.data.id, n: 7, hits: 1 }] };
        },
      },
    });
    const bed = await onPg([flaky], { stepTimeoutMs: 400, ...NO_RETRY });
    await expect(bed.store.dispatch('FLAKY', { id: 'f' })).rejects.toBeInstanceOf(EventStoreHaltedError);
    hangs = false;
    await bed.store.retry({ by: 'test', reason: 'deployed the fix' });
    await waitFor('v1 handled', async () => (await version(bed.store)) === 1, { timeoutMs: 3_000 });
    expect(await rows(bed)).toMatchObject([{ id: 'f', n: 7 }]);
  });

  it('correct() of the timed-out event made while the events before it are handled again: the corrected data runs, the old timeout is not recorded on it', async () => {
    let firstRuns = 0;
    const redoIn = gate();
    const redoGo = gate();
    const model = hitsAnd({
      FIRST: async (e: Data) => {
        firstRuns++;
        if (firstRuns === 2) {
          // The writer is handling the events before the timed-out one again, on its new connection.
          redoIn.open();
          await redoGo.promise;
        }
        return { sav: [{ id: e.data.id, n: 1, hits: 1 }] };
      },
    });
    const bed = await onPg([counters, model], { stepTimeoutMs: 800, ...NO_RETRY });
    // v1 holds the writer so that v2 and v3 are read as one batch.
    const v1 = bed.store.dispatch('SET', { id: 's', n: 1 });
    await attack.entered.promise;
    await bed.store.dispatch('FIRST', { id: 'f' }, { wait: false });
    const v3 = bed.store.dispatch('HANG', { id: 'h', hang: true }).catch((e: unknown) => e);
    await waitFor('v3 queued', async () => (await bed.store.history(3, 3)).length === 1);
    attack.hold.open();
    await v1;
    await redoIn.promise; // v3 timed out; v2 runs again alone
    await bed.store.correct(3, { id: 'h', hang: false }, { by: 'test', reason: 'no hang' });
    redoGo.open();
    // Up to 7b40dca: the writer records v3's old timeout without running it (its attempts were 0
    // before and after the correction), so the corrected event halts and waits a whole retry delay.
    // (9662452 compares the audit trail too: passes there.)
    await waitFor('v3 handled', async () => (await version(bed.store)) === 3, {
      timeoutMs: 3_000,
      describe: async () => bed.store.history(3, 3),
    });
    const [row] = await bed.store.history(3, 3);
    expect(row).toMatchObject({ status: 'handled', attempts: 0, data: { hang: false } });
    expect(await v3).toMatchObject({ v: 3, status: 'handled' });
  });
});

describe('PostgreSQL: replay and close', () => {
  it('a replay whose reducer hangs fails, leaves the tables as they were, and the store goes on handling new events', async () => {
    const bed = await onPg([replayHangs], { stepTimeoutMs: 400, ...NO_RETRY });
    await bed.store.dispatch('HIT', { id: 'a' });
    await bed.store.dispatch('HIT', { id: 'slow' });
    await bed.store.dispatch('HIT', { id: 'a' });
    const before = await rows(bed);
    const outcome = await within(
      4_000,
      bed.store.replay().then(
        () => 'replayed',
        (e: unknown) => e,
      ),
    );
    expect(outcome).toBeInstanceOf(Error);
    expect(String((outcome as Error).message)).toMatch(/did not settle within 400 ms/);
    expect(await rows(bed)).toEqual(before);
    expect(await bed.store.halted()).toBeUndefined();
    await expect(within(3_000, bed.store.dispatch('HIT', { id: 'a' }))).resolves.toMatchObject({
      v: 4,
      status: 'handled',
    });
    expect(await rows(bed)).toMatchObject([
      { id: 'a', n: 3 },
      { id: 'slow', n: 1 },
    ]);
  });

  it('a replay by a store that was never started (an admin endpoint) times out, gives the writer role back, and the started store goes on', async () => {
    const model = (hang: boolean) =>
      defineModel<AtkCounter>({
        entity: AtkCounterEntity,
        reducers: {
          HIT: async (e: Data, { get, replaying }) => {
            if (hang && replaying) await forever();
            return { sav: [{ id: e.data.id, n: ((await get(e.data.id))?.n ?? 0) + 1, hits: 1 }] };
          },
        },
      });
    const bed = await onPg([model(false)], { stepTimeoutMs: 400, ...NO_RETRY, takeoverMs: 20 });
    await bed.store.dispatch('HIT', { id: 'a' });
    const { connectSchema } = await import('../helpers/postgres.js');
    const adminSource = await connectSchema(attack.schema, {
      entities: [...ATK_ENTITIES, ...COMMITBUS_ENTITIES],
    });
    const admin = createEventStore({
      dataSource: adminSource,
      models: [model(true)],
      logger: recordingLogger(),
      stepTimeoutMs: 400,
      takeoverMs: 20,
    });
    attack.extra.push(
      () => adminSource.destroy(),
      () => within(2_000, admin.close()),
    );
    await bed.store.close(); // the admin can become the writer
    const outcome = await within(
      4_000,
      admin.replay().then(
        () => 'replayed',
        (e: unknown) => e,
      ),
    );
    expect(outcome).toBeInstanceOf(Error);
    expect(await rows(bed)).toMatchObject([{ id: 'a', n: 1 }]);
    await waitFor(
      'nobody to hold the writer lock',
      async () => (await writerPid(bed.dataSource)) === undefined,
      {
        timeoutMs: 3_000,
      },
    );
  });

  it('close() while a reducer hangs returns about stepTimeoutMs later and frees the writer lock; the event stays queued', async () => {
    const bed = await onPg([counters], { stepTimeoutMs: 600, ...NO_RETRY });
    const held = bed.store.dispatch('SET', { id: 'a', n: 1 }).catch((e: unknown) => e);
    await attack.entered.promise;
    const closing = await within(
      3_000,
      bed.store.close().then(() => 'closed'),
    );
    expect(closing).toBe('closed');
    expect(await within(1_000, held)).toBeInstanceOf(Error); // its wait ends with the store
    // The writer's old session is being ended: the lock goes with it (a stand-by can take over).
    await waitFor('the writer lock to be free', async () => (await writerPid(bed.dataSource)) === undefined, {
      timeoutMs: 2_000,
    });
    const [row] = await bed.dataSource.query(
      `SELECT status FROM ${attack.schema}.commitbus_es_events WHERE v = 1`,
    );
    expect(row).toMatchObject({ status: 'queued' });
    expect(await rows(bed)).toEqual([]);
  });
});

describe('options', () => {
  it('stepTimeoutMs must be a whole number of ms from 1 to 2^31-1', async () => {
    const bed = await onSqlite([counters]);
    const make = (stepTimeoutMs: unknown) => () =>
      createEventStore({
        dataSource: bed.dataSource,
        models: [counters],
        stepTimeoutMs: stepTimeoutMs as number,
      });
    for (const bad of [0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY, 2 ** 31, '500', null])
      expect(make(bad), String(bad)).toThrow(EventStoreUsageError);
    expect(make(2 ** 31 - 1)).not.toThrow();
    expect(make(1)).not.toThrow();
  });

  it('slow reducers, each within stepTimeoutMs (itself below writerIdleTimeoutMs as the README asks), are handled, not retried for ever', async () => {
    const slow = defineModel<AtkCounter>({
      name: 'slow',
      entity: AtkCounterEntity,
      prefetch: (e) => (e.data as { id: string }).id, // the batch's rows in one query: no statement per event
      reducers: {
        SLOW: async (e: Data) => {
          await new Promise((r) => setTimeout(r, 450));
          return { sav: [{ id: e.data.id, n: 1, hits: 1 }] };
        },
      },
    });
    const bed = await onPg([counters, slow], { stepTimeoutMs: 700, writerIdleTimeoutMs: 1_000, ...NO_RETRY });
    // v1 holds the writer while v2..v4 are queued: one batch of three reducers, no statement between them.
    const v1 = bed.store.dispatch('SET', { id: 's', n: 1 });
    await attack.entered.promise;
    for (const id of ['a', 'b', 'c']) await bed.store.dispatch('SLOW', { id }, { wait: false });
    attack.hold.open();
    await v1;
    // Without a keep-alive the session sits idle in its transaction for 1.35 s, PostgreSQL ends it,
    // the batch fails as "a database call failed; stepping back", and the writer does the same
    // again, for ever: nothing halts, the dispatches never settle.
    const outcome = await within(
      4_000,
      bed.store.handledVersion(4).then(
        () => 'handled',
        (e: unknown) => e,
      ),
    );
    expect(outcome).toBe('handled');
  });
});
