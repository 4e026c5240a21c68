/**
 * When a schedule's ticks fall (src/scheduling/schedule-trigger.ts), as pure
 * functions of the time: `every` on whole multiples since the epoch, cron in
 * its time zone (daylight saving included), to the second; the latest tick
 * at or before a time and the first after it.
 */
import { describe, expect, it } from 'vitest';
import { scheduleTrigger } from '../../src/scheduling/schedule-trigger.js';

const at = (iso: string) => Date.parse(iso);

describe('schedule triggers', () => {
  it('ticks every `every` ms on whole multiples since the epoch', () => {
    const minute = scheduleTrigger('m', { every: 60_000 });
    expect(minute.latest(at('2026-01-01T10:00:59.999Z'))).toBe(at('2026-01-01T10:00:00Z'));
    expect(minute.latest(at('2026-01-01T10:01:00Z'))).toBe(at('2026-01-01T10:01:00Z'));
    expect(minute.next(at('2026-01-01T10:01:00Z'))).toBe(at('2026-01-01T10:02:00Z'));
    expect(scheduleTrigger('f', { every: 50 }).next(1_020)).toBe(1_050);
  });

  it('reads cron in UTC by default: the tick at a time is its latest, the next is strictly after', () => {
    const hourly = scheduleTrigger('h', { cron: '0 * * * *' });
    expect(hourly.latest(at('2026-01-01T11:00:00Z'))).toBe(at('2026-01-01T11:00:00Z'));
    expect(hourly.latest(at('2026-01-01T10:59:59.999Z'))).toBe(at('2026-01-01T10:00:00Z'));
    expect(hourly.next(at('2026-01-01T11:00:00Z'))).toBe(at('2026-01-01T12:00:00Z'));
    expect(hourly.next(at('2026-01-01T10:59:59.999Z'))).toBe(at('2026-01-01T11:00:00Z'));
  });

  it('reads cron in its time zone, daylight saving included', () => {
    const nine = scheduleTrigger('paris', { cron: '0 9 * * *', tz: 'Europe/Paris' });
    expect(nine.latest(at('2026-01-15T12:00:00Z'))).toBe(at('2026-01-15T08:00:00Z'));
    expect(nine.latest(at('2026-07-15T12:00:00Z'))).toBe(at('2026-07-15T07:00:00Z'));
    expect(nine.next(at('2026-03-28T12:00:00Z'))).toBe(at('2026-03-29T07:00:00Z'));
    const kolkata = scheduleTrigger('kolkata', { cron: '0 9 * * *', tz: 'Asia/Kolkata' });
    expect(kolkata.next(at('2026-01-15T00:00:00Z'))).toBe(at('2026-01-15T03:30:00Z'));
  });

  it('takes a seconds field and the named expressions', () => {
    const quarter = scheduleTrigger('s', { cron: '*/15 * * * * *' });
    expect(quarter.latest(at('2026-01-01T10:00:29.500Z'))).toBe(at('2026-01-01T10:00:15Z'));
    expect(quarter.next(at('2026-01-01T10:00:29.500Z'))).toBe(at('2026-01-01T10:00:30Z'));
    const daily = scheduleTrigger('d', { cron: '@daily', tz: 'UTC' });
    expect(daily.next(at('2026-01-01T10:00:00Z'))).toBe(at('2026-01-02T00:00:00Z'));
  });
});
