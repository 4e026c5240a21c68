/**
 * Dead letters through the public API, on both transports: listed with
 * filters, got by id, one letter per failure delivered again; purged by id,
 * filter or all, without running anything.
 */
import { describe, expect, it } from 'vitest';
import { defineHandler, type EventHandlersConfig } from '../../src/index.js';
import { recordCreated, recordPublished, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { TRANSPORT_NAMES } from '../helpers/transports.js';
import { deadLetterBed, onTransport } from './dead-letters-bed.js';

const bed = deadLetterBed('dead-letters-list-purge');

describe.each(TRANSPORT_NAMES)('%s transport: dead letters', (transport) => {
  const { config, started, pushRaw, expectLeftInRedis } = onTransport(bed, transport);

  it('lists with filters and gets by id; a failure delivered again stays one letter', async () => {
    const failing = (name: string) =>
      defineHandler(name, () => {
        throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      RECORD: [{ handler: failing('list.sync'), sync: true, attempts: 1 }],
      'RECORD.PUBLISH': [{ handler: failing('list.async'), attempts: 1 }],
    };
    const b = await started({ events: TEST_EVENTS, handlers, config: config('list') });
    const [created, published1, published2] = [
      recordCreated('c1'),
      recordPublished('p1'),
      recordPublished('p2'),
    ];
    await b.publish(created);
    await b.whenIdle(10_000);
    await pushRaw(b, ['{"not":"an envelope"}']);
    await b.publish([published1, published2]);
    await b.whenIdle(10_000);
    const first = await b.deadLetters.get(`${published1.id}.list.sync`);
    await b.publish(published1); // redelivered: its handlers fail again
    await b.whenIdle(10_000);

    const all = await b.deadLetters.list();
    expect(all).toHaveLength(6);
    const deadAts = all.map((l) => l.deadAt.getTime());
    expect(deadAts).toEqual([...deadAts].sort((x, y) => x - y));
    const again = await b.deadLetters.get(`${published1.id}.list.sync`);
    expect(again?.deadAt.getTime()).toBeGreaterThanOrEqual(first?.deadAt.getTime() as number);
    expect(all.filter((l) => l.id === `${published1.id}.list.sync`)).toHaveLength(1);

    const ids = async (filter: Parameters<typeof b.deadLetters.list>[0]) =>
      (await b.deadLetters.list(filter)).map((l) => l.id).sort();
    expect(await ids({ handler: 'list.async' })).toEqual(
      [`${published1.id}.list.async`, `${published2.id}.list.async`].sort(),
    );
    expect(await ids({ eventId: published1.id })).toEqual([
      `${published1.id}.list.async`,
      `${published1.id}.list.sync`,
    ]);
    expect(await ids({ handlingKey: 'RECORD.CREATE' })).toEqual([`${created.id}.list.sync`]);
    expect(await ids({ handler: 'list.sync', handlingKey: 'RECORD.PUBLISH' })).toEqual(
      [`${published1.id}.list.sync`, `${published2.id}.list.sync`].sort(),
    );
    expect(await ids({ reason: 'exhausted' })).toHaveLength(5);
    const [undecodable] = await b.deadLetters.list({ kind: 'undecodable' });
    expect(undecodable).toMatchObject({ reason: 'malformed', payload: '{"not":"an envelope"}' });
    expect(undecodable?.id).toMatch(/^undecodable\.[0-9a-f]{32}$/);
    expect(await b.deadLetters.list({ limit: 2 })).toEqual(all.slice(0, 2));
    // Newest first, a page after a cursor, and the error's text.
    expect(await b.deadLetters.list({ order: 'newest' })).toEqual([...all].reverse());
    expect(
      await b.deadLetters.list({ order: 'newest', after: all[3] as (typeof all)[number], limit: 2 }),
    ).toEqual([all[2], all[1]]);
    expect(await ids({ errorIncludes: 'list.async is' })).toEqual(
      [`${published1.id}.list.async`, `${published2.id}.list.async`].sort(),
    );
    const refused = [
      [{ order: 'sideways' }, "order must be 'oldest' or 'newest'"],
      [{ after: { id: 'x' } }, "after must be a letter's { id, deadAt }"],
      [{ errorIncludes: '' }, 'errorIncludes must be non-empty text'],
    ] as const;
    for (const [filter, message] of refused) {
      await expect(b.deadLetters.list(filter as never)).rejects.toMatchObject({
        code: 'COMMITBUS_DEAD_LETTER_FILTER',
        message: expect.stringContaining(message),
      });
    }
    // An order selects nothing: as a re-drive's filter alone it would mean every letter.
    await expect(b.deadLetters.redrive({ order: 'newest' })).rejects.toThrow("pass 'all'");
    expect(await b.deadLetters.get(all[3]?.id as string)).toEqual(all[3]);
    expect(await b.deadLetters.get('no-such-letter')).toBeUndefined();
    await expectLeftInRedis(b, 2);
  });

  it('purges one letter, a filter, or all, without running anything', async () => {
    const rec = new Recorder();
    const failing = (name: string) =>
      rec.handler(name, () => {
        throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        { handler: failing('purge.sync'), sync: true, attempts: 1 },
        { handler: failing('purge.async'), attempts: 1 },
      ],
    };
    const b = await started({ events: TEST_EVENTS, handlers, config: config('purge') });
    const [e1, e2, e3] = [recordCreated('e1'), recordCreated('e2'), recordCreated('e3')];
    await b.publish([e1, e2, e3]);
    await b.whenIdle(10_000);
    expect(await b.deadLetters.list()).toHaveLength(6);
    await expectLeftInRedis(b, 2);

    expect(await b.deadLetters.purge(`${e1.id}.purge.sync`)).toBe(1);
    expect(await b.deadLetters.purge(`${e1.id}.purge.sync`)).toBe(0);
    expect(await b.deadLetters.purge({ handler: 'purge.async' })).toBe(3);
    await expect(b.deadLetters.purge({})).rejects.toThrow("pass 'all'");
    expect((await b.deadLetters.list()).map((l) => l.id).sort()).toEqual(
      [`${e2.id}.purge.sync`, `${e3.id}.purge.sync`].sort(),
    );
    expect(await b.deadLetters.purge('all')).toBe(2);
    await b.whenIdle(10_000);

    expect(await b.deadLetters.list()).toEqual([]);
    expect([rec.count('purge.sync'), rec.count('purge.async')]).toEqual([3, 3]);
    await expectLeftInRedis(b, 0);
  });
});
