/**
 * Failures of ordered events through the public API, on both transports: a
 * failing event holds back only its key; after the last attempt a key halts
 * (default) or skips; halted keys are listed, re-driven and skipped by an
 * operator.
 */
import { describe, expect, it } from 'vitest';
import { defineHandler, NonRetryableError } from '../../src/index.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { TRANSPORT_NAMES } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';
import { ItemChanged, LedgerEntry, onTransport, range, Seen } from './ordering-bed.js';

const bed = redisTestBed('ordering-failures');

describe.each(TRANSPORT_NAMES)('ordered events on %s', (transport) => {
  const { start } = onTransport(bed, transport);

  it('holds back only the failing key while it retries, then goes on in order', async () => {
    const seen = new Seen();
    let failures = 0;
    const { bus } = await start({
      ITEM: [
        {
          handler: defineHandler<ItemChanged>('item.flaky', (e) => {
            if (e.item === 1 && e.n === 2 && failures < 2) {
              failures++;
              throw new Error('flaky');
            }
            seen.record('item.flaky', e);
          }),
          sync: true,
          attempts: 3,
          backoff: { type: 'fixed', delayMs: 150 },
        },
      ],
    });
    await bus.publish(range(1, 5).map((n) => ItemChanged.create({ item: 1, n })));
    await bus.publish(range(1, 5).map((n) => ItemChanged.create({ item: 2, n })));
    // Key 2 is done while key 1 still waits for its retries.
    await waitFor('key item:2 handled', () => seen.ns('item.flaky', 'item:2').length === 5);
    expect(seen.ns('item.flaky', 'item:1')).toEqual([1]);
    await bus.whenIdle(10_000);
    expect(failures).toBe(2);
    expect(seen.ns('item.flaky', 'item:1')).toEqual(range(1, 5));
    const [first, second] = seen.of('item.flaky', 'item:1');
    expect(second?.prev).toBe(first?.seq);
  });

  it('halts a key after the last attempt, lists it, and re-drives it in order', async () => {
    const seen = new Seen();
    let broken = true;
    const { bus } = await start({
      ITEM: [
        {
          handler: defineHandler<ItemChanged>('item.strict', (e) => {
            if (broken && e.item === 1 && e.n === 3) throw new Error('cannot apply change 3');
            seen.record('item.strict', e);
          }),
          sync: true,
          attempts: 2,
        },
        {
          handler: defineHandler<ItemChanged>('item.after', (e) => seen.record('item.after', e)),
          sync: true,
        },
      ],
    });
    await bus.publish(range(1, 6).map((n) => ItemChanged.create({ item: 1, n })));
    await bus.publish(range(1, 3).map((n) => ItemChanged.create({ item: 2, n })));
    await waitFor('key item:1 halted', async () => (await bus.ordering.halted()).length === 1);
    await bus.whenIdle(10_000); // halted work counts as idle

    const [halted] = await bus.ordering.halted();
    expect(halted).toMatchObject({
      key: 'item:1',
      lane: 'sync',
      handler: 'item.strict',
      handlingKey: 'ITEM.CHANGE',
      reason: 'exhausted',
      error: 'cannot apply change 3',
      attempts: 2,
      waiting: 4,
    });
    expect(seen.ns('item.strict', 'item:1')).toEqual([1, 2]);
    expect(seen.ns('item.after', 'item:1')).toEqual([1, 2]);
    expect(seen.ns('item.strict', 'item:2')).toEqual([1, 2, 3]);
    expect(await bus.deadLetters.list()).toEqual([]);

    broken = false;
    expect(await bus.ordering.redrive('item:2')).toBe(0);
    expect(await bus.ordering.redrive('item:1')).toBe(1);
    await bus.whenIdle(10_000);
    expect(await bus.ordering.halted()).toEqual([]);
    expect(seen.ns('item.strict', 'item:1')).toEqual(range(1, 6));
    expect(seen.ns('item.after', 'item:1')).toEqual(range(1, 6));
    const runs = seen.of('item.strict', 'item:1');
    for (let i = 1; i < runs.length; i++) expect(runs[i]?.prev).toBe(runs[i - 1]?.seq);
  });

  it('skips a key past a given-up handler for a class with afterLastAttempt: skip, keeping a dead letter', async () => {
    const seen = new Seen();
    const { bus } = await start({
      LEDGER: [
        {
          handler: defineHandler<LedgerEntry>('ledger.post', (e) => {
            if (e.n === 2) throw new NonRetryableError('entry 2 is invalid');
            seen.record('ledger.post', e);
          }),
          sync: true,
        },
        {
          handler: defineHandler<LedgerEntry>('ledger.audit', (e) => seen.record('ledger.audit', e)),
          sync: true,
        },
      ],
    });
    await bus.publish(range(1, 4).map((n) => LedgerEntry.create({ item: 7, n })));
    await bus.whenIdle(10_000);

    expect(seen.ns('ledger.post', 'ledger:7')).toEqual([1, 3, 4]);
    expect(seen.ns('ledger.audit', 'ledger:7')).toEqual([1, 2, 3, 4]);
    expect(await bus.ordering.halted()).toEqual([]);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason, l.error])).toEqual([
      ['ledger.post', 'non-retryable', 'entry 2 is invalid'],
    ]);
  });

  it('lets an operator skip the halted event of a key: its handler becomes a dead letter and the key goes on', async () => {
    const seen = new Seen();
    const { bus } = await start({
      ITEM: [
        {
          handler: defineHandler<ItemChanged>('item.async', (e) => {
            if (e.n === 2) throw new NonRetryableError('change 2 is poison');
            seen.record('item.async', e);
          }),
          sync: false,
        },
        { handler: defineHandler<ItemChanged>('item.sync', (e) => seen.record('item.sync', e)), sync: true },
      ],
    });
    await bus.publish(range(1, 4).map((n) => ItemChanged.create({ item: 3, n })));
    await waitFor('the async lane halted', async () => (await bus.ordering.halted()).length === 1);
    const [halted] = await bus.ordering.halted();
    expect(halted).toMatchObject({
      key: 'item:3',
      lane: 'async',
      handler: 'item.async',
      reason: 'non-retryable',
    });
    // Only the async handler's lane halted: the sync handlers went on.
    await waitFor('sync lane done', () => seen.ns('item.sync', 'item:3').length === 4);
    expect(seen.ns('item.async', 'item:3')).toEqual([1]);

    expect(await bus.ordering.skip('item:3')).toBe(1);
    await bus.whenIdle(10_000);
    expect(seen.ns('item.async', 'item:3')).toEqual([1, 3, 4]);
    const letters = await bus.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason])).toEqual([['item.async', 'non-retryable']]);
    expect(await bus.ordering.pending()).toBe(0);
  });
});
