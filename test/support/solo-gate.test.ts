/**
 * The worker process's gate: shared work side by side, solo work alone, and
 * the order in which waiting work starts.
 */
import { describe, expect, it } from 'vitest';
import { SoloGate } from '../../src/support/solo-gate.js';

/** A piece of work that starts when the gate lets it and ends on `finish()`. */
function work(log: string[], name: string) {
  let finish!: () => void;
  let started!: () => void;
  const ended = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const run = async () => {
    log.push(`${name} starts`);
    started();
    await ended;
    log.push(`${name} ends`);
    return name;
  };
  return { run, running, finish };
}

/** Lets every promise callback queued so far run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SoloGate', () => {
  it('runs shared work side by side', async () => {
    const gate = new SoloGate();
    const log: string[] = [];
    const [a, b] = [work(log, 'a'), work(log, 'b')];
    const done = [gate.shared(a.run), gate.shared(b.run)];
    await Promise.all([a.running, b.running]);
    a.finish();
    b.finish();
    expect(await Promise.all(done)).toEqual(['a', 'b']);
  });

  it('runs solo work once the shared work under way ended, and no shared work while it waits or runs', async () => {
    const gate = new SoloGate();
    const log: string[] = [];
    const [a, solo, b] = [work(log, 'a'), work(log, 'solo'), work(log, 'b')];
    const doneA = gate.shared(a.run);
    await a.running;
    const doneSolo = gate.alone(solo.run);
    const doneB = gate.shared(b.run);
    await settle();
    expect(log).toEqual(['a starts']);
    expect(gate.soloQueued).toBe(1);
    a.finish();
    await solo.running;
    await settle();
    expect(log).toEqual(['a starts', 'a ends', 'solo starts']);
    solo.finish();
    await b.running;
    b.finish();
    await Promise.all([doneA, doneSolo, doneB]);
    expect(log).toEqual(['a starts', 'a ends', 'solo starts', 'solo ends', 'b starts', 'b ends']);
  });

  it('runs solo works one at a time, letting the shared work that waited go first between them', async () => {
    const gate = new SoloGate();
    const log: string[] = [];
    const [one, two, shared] = [work(log, 'one'), work(log, 'two'), work(log, 'shared')];
    const doneOne = gate.alone(one.run);
    await one.running;
    const doneTwo = gate.alone(two.run);
    const doneShared = gate.shared(shared.run);
    await settle();
    one.finish();
    await shared.running;
    await settle();
    expect(log).toEqual(['one starts', 'one ends', 'shared starts']);
    shared.finish();
    await two.running;
    two.finish();
    await Promise.all([doneOne, doneTwo, doneShared]);
    expect(log).toEqual(['one starts', 'one ends', 'shared starts', 'shared ends', 'two starts', 'two ends']);
  });

  it('is free again after work that throws, and passes the error on', async () => {
    const gate = new SoloGate();
    await expect(gate.alone(async () => Promise.reject(new Error('solo broke')))).rejects.toThrow(
      'solo broke',
    );
    await expect(gate.shared(async () => Promise.reject(new Error('shared broke')))).rejects.toThrow(
      'shared broke',
    );
    expect(await gate.alone(async () => 'alone again')).toBe('alone again');
    expect(await gate.shared(async () => 'shared again')).toBe('shared again');
  });
});
