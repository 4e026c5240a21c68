/**
 * Re-driving dead letters through the public API, on both transports: one
 * letter, a filter, or all; only the failed handler runs, as a fresh job.
 */
import { describe, expect, it } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { Recorder } from '../helpers/recorder.js';
import { TRANSPORT_NAMES } from '../helpers/transports.js';
import { deadLetterBed, onTransport } from './dead-letters-bed.js';

const bed = deadLetterBed('dead-letters-redrive');

describe.each(TRANSPORT_NAMES)('%s transport: dead letters', (transport) => {
  const { config, started, expectLeftInRedis } = onTransport(bed, transport);

  it('re-drives one letter, a filter, or all: only the failed handler runs, as a fresh job', async () => {
    const rec = new Recorder();
    let broken = true;
    const failing = (name: string) =>
      rec.handler(name, () => {
        if (broken) throw new Error(`${name} is down`);
      });
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [rec.handler('re.sync-first'), true],
        { handler: failing('re.sync'), sync: true, attempts: 2 },
        [rec.handler('re.sync-after'), true],
        rec.handler('re.async-ok'),
        { handler: failing('re.async'), attempts: 2 },
      ],
    };
    const b = await started({ events: TEST_EVENTS, handlers, config: config('redrive') });
    const [e1, e2, e3] = [recordCreated('e1'), recordCreated('e2'), recordCreated('e3')];
    await b.publish([e1, e2, e3]);
    await b.whenIdle(10_000);
    expect(await b.deadLetters.list()).toHaveLength(6);
    const names = ['re.sync-first', 're.sync', 're.sync-after', 're.async-ok', 're.async'];
    const counts = () => Object.fromEntries(names.map((n) => [n, rec.count(n)]));
    let expected = { 're.sync-first': 3, 're.sync': 6, 're.sync-after': 3, 're.async-ok': 3, 're.async': 6 };
    expect(counts()).toEqual(expected);

    // Still broken: the handler gets all its attempts again, then comes back as a letter.
    const before = await b.deadLetters.get(`${e1.id}.re.sync`);
    expect(await b.deadLetters.redrive(`${e1.id}.re.sync`)).toBe(1);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 8 };
    expect(counts()).toEqual(expected);
    expect(
      rec.runs.filter((r) => r.handler === 're.sync' && r.eventId === e1.id).map((r) => r.attempt),
    ).toEqual([1, 2, 1, 2]);
    const back = await b.deadLetters.get(`${e1.id}.re.sync`);
    expect(back?.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(back?.deadAt.getTime()).toBeGreaterThan(before?.deadAt.getTime() as number);

    broken = false;
    expect(await b.deadLetters.redrive(`${e1.id}.re.sync`)).toBe(1);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 9 };
    expect(counts()).toEqual(expected);
    expect(await b.deadLetters.list()).toHaveLength(5);

    expect(await b.deadLetters.redrive({ eventId: e2.id })).toBe(2);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 10, 're.async': 7 };
    expect(counts()).toEqual(expected);
    expect(await b.deadLetters.list({ eventId: e2.id })).toEqual([]);

    expect(await b.deadLetters.redrive('all')).toBe(3);
    await b.whenIdle(10_000);
    expected = { ...expected, 're.sync': 11, 're.async': 9 };
    expect(counts()).toEqual(expected);
    // Each re-driven run was a fresh first attempt.
    expect(
      rec.runs
        .filter((r) => r.handler === 're.async')
        .slice(-3)
        .map((r) => r.attempt),
    ).toEqual([1, 1, 1]);
    expect(await b.deadLetters.list()).toEqual([]);
    expect(await b.deadLetters.redrive('all')).toBe(0);
    expect(await b.deadLetters.redrive('no-such-letter')).toBe(0);
    await expectLeftInRedis(b, 0);
  });
});
