/**
 * Ordered events on a bus on the SQL transport, end to end on PostgreSQL and
 * SQLite: events published by one bus are handled by the worker of another
 * on the same database (as another process would), each order key's events
 * one after the other in publish order, by sync and async handlers; a
 * failing handler halts only its key, and an operator's redrive or skip
 * resumes it in order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineHandler,
  type EventHandlersConfig,
  NonRetryableError,
  OrderingPositionsMismatchError,
} from '../../../src/index.js';
import { syncLane } from '../../../src/ordering/lane.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { FlowStep, flowStep } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

let n = 0;

/** What the handlers saw: per handler and flow, each step's number, seq and prev, in handling order. */
class Seen {
  readonly runs: { handler: string; flow: string; step: number; seq: number; prev?: number }[] = [];
  record(handler: string, e: FlowStep): void {
    const o = e.ordering;
    this.runs.push({
      handler,
      flow: e.flow,
      step: Number(e.recid),
      seq: o?.seq ?? -1,
      ...(o?.prev === undefined ? {} : { prev: o.prev }),
    });
  }
  steps(handler: string, flow: string): number[] {
    return this.runs.filter((r) => r.handler === handler && r.flow === flow).map((r) => r.step);
  }
  chained(handler: string, flow: string): boolean {
    const runs = this.runs.filter((r) => r.handler === handler && r.flow === flow);
    return runs.every((r, i) => i === 0 || r.prev === runs[i - 1]?.seq);
  }
}

const steps = (flow: string, count: number) =>
  Array.from({ length: count }, (_, i) => flowStep(flow, String(i + 1)));
const upTo = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

describe.each(['postgres', 'sqlite'] as const)('ordered events on the SQL transport (%s)', (which) => {
  const transport = () => sqlTransport({ dataSource: databases[which], pollMs: 50 });

  /** A worker bus and a publisher bus of one name on the database, with `handlers` for FLOW.STEP. */
  async function twoBuses(handlers: EventHandlersConfig, attempts = 2) {
    const name = `sqlord${++n}`;
    const config = fastConfig({ name, outbox: { enabled: false }, handlers: { attempts } });
    const events = [FlowStep];
    const { bus: worker } = await buses.start({ events, handlers, config, transport: transport() });
    const publisher = buses.create({ events, handlers, config, transport: transport() });
    return { name, worker, publisher };
  }

  it('hands each key its events in publish order, to sync and async handlers, across buses', async () => {
    const seen = new Seen();
    const { name, worker, publisher } = await twoBuses({
      'FLOW.STEP': [
        { handler: defineHandler<FlowStep>('apply', (e) => seen.record('apply', e)), sync: true },
        { handler: defineHandler<FlowStep>('notify', (e) => seen.record('notify', e)), sync: false },
      ],
    });
    // Interleaved publishes of three keys, in several batches.
    for (let batch = 0; batch < 3; batch++) {
      await publisher.publish(
        ['a', 'b', 'c'].flatMap((flow) => [1, 2, 3, 4].map((i) => flowStep(flow, String(batch * 4 + i)))),
      );
    }
    await waitFor('every step handled twice', () => seen.runs.length === 3 * 12 * 2, { timeoutMs: 20_000 });
    for (const flow of ['a', 'b', 'c']) {
      expect(seen.steps('apply', flow)).toEqual(upTo(12));
      expect(seen.steps('notify', flow)).toEqual(upTo(12));
      expect(seen.chained('apply', flow)).toBe(true);
      expect(seen.chained('notify', flow)).toBe(true);
    }
    await worker.whenIdle(10_000);
    expect(await publisher.ordering.pending()).toBe(0);
    const db = new SqlDb(databases[which]);
    const [left] = await db.query<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM ${db.table('commitbus_lane_events')} WHERE bus = ?`,
      [name],
    );
    expect(Number(left?.n)).toBe(0);
  });

  it('keeps each key in order and handles each event once with three workers on the database at once', async () => {
    const seen = new Seen();
    const handlers: EventHandlersConfig = {
      'FLOW.STEP': [
        {
          handler: defineHandler<FlowStep>('slow', async (e) => {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
            seen.record('slow', e);
          }),
          sync: true,
        },
      ],
    };
    const { name, publisher } = await twoBuses(handlers);
    const config = fastConfig({ name, outbox: { enabled: false }, handlers: { attempts: 2 } });
    for (let i = 0; i < 2; i++) {
      await buses.start({ events: [FlowStep], handlers, config, transport: transport() });
    }
    const flows = Array.from({ length: 8 }, (_, i) => `f${i}`);
    // Each key's batches one after the other; the keys at once.
    await Promise.all(
      flows.map(async (flow) => {
        for (let batch = 0; batch < 3; batch++) {
          await publisher.publish([1, 2, 3, 4, 5].map((i) => flowStep(flow, String(batch * 5 + i))));
        }
      }),
    );
    await waitFor('every step handled', () => seen.runs.length >= flows.length * 15, { timeoutMs: 30_000 });
    for (const flow of flows) {
      expect(seen.steps('slow', flow)).toEqual(upTo(15));
      expect(seen.chained('slow', flow)).toBe(true);
    }
    // The last steps may still be on their way to the store.
    await waitFor('the lanes empty', async () => (await publisher.ordering.pending()) === 0);
    expect(seen.runs).toHaveLength(flows.length * 15);
  });

  it('halts only the key of a handler that gave up; a redrive runs it again and the key goes on in order', async () => {
    const seen = new Seen();
    let broken = true;
    const { worker, publisher } = await twoBuses({
      'FLOW.STEP': [
        {
          handler: defineHandler<FlowStep>('strict', (e) => {
            if (broken && e.flow === 'x' && e.recid === '3') throw new Error('cannot apply step 3');
            seen.record('strict', e);
          }),
          sync: true,
        },
      ],
    });
    await publisher.publish([...steps('x', 5), ...steps('y', 3)]);
    await waitFor('key flow:x halted', async () => (await publisher.ordering.halted()).length === 1, {
      timeoutMs: 20_000,
    });
    await waitFor('key flow:y done', () => seen.steps('strict', 'y').length === 3);
    const [halted] = await publisher.ordering.halted();
    expect(halted).toMatchObject({ key: 'flow:x', handler: 'strict', reason: 'exhausted', attempts: 2 });
    expect(halted?.error).toContain('cannot apply step 3');
    expect(seen.steps('strict', 'x')).toEqual([1, 2]);
    expect(await publisher.ordering.pending()).toBe(3);
    const status = await publisher.status();
    expect(status.backlog.ordered).toBe(3);
    expect(status.halted).toMatchObject({ count: 1, first: [{ key: 'flow:x', handler: 'strict' }] });
    expect(status.rebased).toEqual({ count: 0, recent: [] });

    broken = false;
    expect(await publisher.ordering.redrive('flow:y')).toBe(0);
    expect(await publisher.ordering.redrive('flow:x')).toBe(1);
    await waitFor('key flow:x done', () => seen.steps('strict', 'x').length === 5, { timeoutMs: 20_000 });
    expect(seen.steps('strict', 'x')).toEqual(upTo(5));
    expect(seen.chained('strict', 'x')).toBe(true);
    await worker.whenIdle(10_000);
    expect(await publisher.ordering.halted()).toEqual([]);
    expect(await publisher.deadLetters.list()).toEqual([]);
  });

  it('skips the halted event of a key on an operator’s skip: its handler becomes a dead letter and the key goes on', async () => {
    const seen = new Seen();
    const { worker, publisher } = await twoBuses(
      {
        'FLOW.STEP': [
          {
            handler: defineHandler<FlowStep>('poisoned', (e) => {
              if (e.recid === '2') throw new NonRetryableError('step 2 is poison');
              seen.record('poisoned', e);
            }),
            sync: false,
          },
          { handler: defineHandler<FlowStep>('plain', (e) => seen.record('plain', e)), sync: true },
        ],
      },
      3,
    );
    await publisher.publish(steps('z', 4));
    await waitFor('the async lane halted', async () => (await publisher.ordering.halted()).length === 1, {
      timeoutMs: 20_000,
    });
    const [halted] = await publisher.ordering.halted();
    expect(halted).toMatchObject({
      key: 'flow:z',
      lane: 'async',
      handler: 'poisoned',
      reason: 'non-retryable',
    });
    // Only the async handler's lane halted: the sync handler went on.
    await waitFor('sync lane done', () => seen.steps('plain', 'z').length === 4);
    expect(seen.steps('poisoned', 'z')).toEqual([1]);

    expect(await publisher.ordering.skip('flow:z')).toBe(1);
    await waitFor('key flow:z done', () => seen.steps('poisoned', 'z').length === 3, { timeoutMs: 20_000 });
    expect(seen.steps('poisoned', 'z')).toEqual([1, 3, 4]);
    await worker.whenIdle(10_000);
    const letters = await publisher.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason])).toEqual([['poisoned', 'non-retryable']]);
    expect(await publisher.ordering.pending()).toBe(0);
  });

  it('refuses a publish that numbers a key otherwise than its lane does, whole and before anything is written', async () => {
    // No worker: the lanes keep what was published.
    const publisher = buses.create({
      events: [FlowStep],
      config: fastConfig({ name: `sqlord${++n}`, outbox: { enabled: false } }),
      transport: transport(),
    });
    const [given, numbered, fresh] = [syncLane('given'), syncLane('numbered'), syncLane('fresh')];
    const event = (id: string, lane: string, position?: number) => ({
      id,
      payload: `{"id":"${id}"}`,
      lane,
      position,
    });
    await publisher.transport.publish([event('g1', given, 1), event('n1', numbered)]);
    expect(await publisher.ordering.pending()).toBe(2);
    // A lane numbered by the outbox refuses an event the transport would number, and the other way round.
    await expect(
      publisher.transport.publish([event('n2', numbered), event('g2', given)]),
    ).rejects.toBeInstanceOf(OrderingPositionsMismatchError);
    await expect(publisher.transport.publish([event('n3', numbered, 2)])).rejects.toMatchObject({
      code: 'COMMITBUS_ORDERING_POSITIONS_MISMATCH',
      orderKey: 'numbered',
    });
    // Two events of a batch that disagree on a new lane.
    await expect(
      publisher.transport.publish([event('f1', fresh, 1), event('f2', fresh)]),
    ).rejects.toBeInstanceOf(OrderingPositionsMismatchError);
    expect(await publisher.ordering.pending()).toBe(2);
    // Nothing of the refused batches was kept, their ids included: they publish once fixed.
    expect(await publisher.transport.publish([event('n2', numbered), event('g2', given, 2)])).toEqual({
      appended: 2,
      delayed: 0,
      dropped: 0,
    });
  });
});
