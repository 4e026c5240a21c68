/**
 * The `EventLog` port's contract (src/handlers/event-log.ts), run against
 * every adapter in ./adapters.ts through the log its transport opens:
 * appends in order with a dedupe window, delayed entries held until due,
 * entries pending for their reader until acknowledged, stale ones taken
 * over one at a time with their deliveries counted, and a read-only look
 * for stale ones.
 */
import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../src/handlers/event-log.js';
import { waitFor } from '../helpers/wait-for.js';
import { type ADAPTERS, adaptersFor } from './adapters.js';
import { conformanceBed } from './bed.js';

const bed = conformanceBed('conformance-log');

/** A fresh log of `adapter`'s transport (its own bus name), with a dedupe window of `dedupeWindowMs`. */
function logOf(adapter: (typeof ADAPTERS)[number], dedupeWindowMs = 60_000): EventLog {
  return bed.open(adapter, { publishing: { dedupeWindowMs } }).transport.log;
}

const event = (id: string, extra: object = {}) => ({ id, payload: JSON.stringify({ id }), ...extra });

describe.each(adaptersFor('log'))('EventLog on $name', (adapter) => {
  it('appends in order; a read hands each entry to one consumer, delivered once, pending until acknowledged', async () => {
    const log = logOf(adapter);
    expect(await log.append([event('a'), event('b'), event('c')])).toMatchObject({ appended: 3, dropped: 0 });
    const first = await log.read('one', 2, 10);
    expect(first.map((e) => [JSON.parse(e.payload).id, e.deliveries ?? 1])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    const second = await log.read('two', 10, 10);
    expect(second.map((e) => JSON.parse(e.payload).id)).toEqual(['c']);
    expect(await log.read('three', 10, 10)).toEqual([]);
    expect(await log.backlog()).toBe(3);
    expect(await log.oldestAt()).toBeInstanceOf(Date);
    await log.ack([...first, ...second].map((e) => e.entryId));
    expect(await log.backlog()).toBe(0);
    expect(await log.oldestAt()).toBeUndefined();
    await log.removeConsumer('one');
  });

  it('drops an id accepted within the dedupe window, unless told to skip it; accepts it again after the window', async () => {
    const log = logOf(adapter, 300);
    expect(await log.append([event('x')])).toMatchObject({ appended: 1 });
    expect(await log.append([event('x')])).toMatchObject({ appended: 0, dropped: 1 });
    expect(await log.append([event('x', { skipDedupe: true })])).toMatchObject({ appended: 1, dropped: 0 });
    await waitFor('the window to pass', async () => (await log.append([event('x')])).appended === 1);
    expect(await log.backlog()).toBe(3);
  });

  it('drops a second copy of an id within one append, as a duplicate of the first', async () => {
    const log = logOf(adapter);
    expect(await log.append([event('twice'), event('once'), event('twice')])).toMatchObject({
      appended: 2,
      dropped: 1,
    });
    expect(await log.backlog()).toBe(2);
  });

  it('holds an event with a future deliverAt until releaseDue finds it due', async () => {
    const log = logOf(adapter);
    // Far enough ahead that a loaded machine's append and reads still come before it.
    expect(await log.append([event('later', { deliverAt: Date.now() + 1_500 })])).toMatchObject({
      appended: 0,
      delayed: 1,
    });
    expect(await log.delayed()).toBe(1);
    expect(await log.read('early', 10, 10)).toEqual([]);
    await waitFor('the event to be due', async () => (await log.releaseDue(10)) === 1);
    expect(await log.delayed()).toBe(0);
    expect((await log.read('on-time', 10, 10)).map((e) => JSON.parse(e.payload).id)).toEqual(['later']);
  });

  it('takes over the oldest stale entry, one at a time, counting a delivery; hasStale only looks', async () => {
    const log = logOf(adapter);
    await log.append([event('p'), event('q')]);
    await log.read('dead', 10, 10);
    expect(await log.claimStale('alive', 60_000)).toBeUndefined();
    expect(await log.hasStale(60_000)).toBe(false);
    await waitFor('the entries to be idle 50 ms', () => log.hasStale(50));
    // Looking again and again counts nothing.
    for (let i = 0; i < 3; i++) expect(await log.hasStale(50)).toBe(true);
    const taken = await log.claimStale('alive', 50);
    expect(taken === undefined ? undefined : [JSON.parse(taken.payload).id, taken.deliveries]).toEqual([
      'p',
      2,
    ]);
    await log.ack([taken?.entryId ?? '']);
    await waitFor('the other one to be idle 50 ms', () => log.hasStale(50));
    const next = await log.claimStale('alive', 50);
    expect(next === undefined ? undefined : [JSON.parse(next.payload).id, next.deliveries]).toEqual(['q', 2]);
    await log.ack([next?.entryId ?? '']);
    expect(await log.hasStale(0)).toBe(false);
    expect(await log.backlog()).toBe(0);
  });
});
