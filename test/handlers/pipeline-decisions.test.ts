/**
 * The handler pipeline's decisions, one at a time, on a real handler table
 * and serializer (no transport): what it returns for work delivered too
 * often, a payload it cannot decode, a handler it does not know, a job's own
 * last attempt, values thrown that are not Errors, and a chain with blocked,
 * given-up and paused handlers. The behavioural suite
 * (`pipeline.test.ts`) shows the same rules end to end.
 */
import { describe, expect, it } from 'vitest';
import { attemptFailure } from '../../src/dead-letters/attempt-failure.js';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import type { AfterLastAttempt } from '../../src/events/ordering-policy.js';
import { ThrownValueError } from '../../src/handlers/errors/thrown-value.error.js';
import type { RuleVerdict } from '../../src/handlers/handler-gate.js';
import { HandlerPipeline } from '../../src/handlers/handler-pipeline.js';
import { HandlerRunner } from '../../src/handlers/handler-runner.js';
import { HandlerTable } from '../../src/handlers/handler-table.js';
import type { PipelineOutcome } from '../../src/handlers/pipeline-step.js';
import type { PipelineWork } from '../../src/handlers/pipeline-work.js';
import { type EventHandlersConfig, NonRetryableError, silentLogger } from '../../src/index.js';
import { PIPE_EVENTS, PipeItem } from '../helpers/handler-paths.js';
import { Recorder } from '../helpers/recorder.js';

const registry = new EventRegistry(PIPE_EVENTS);
const serializer = new EventSerializer(registry);
const MAX_DELIVERIES = 3;

/** A pipeline over `handlers`, with `verdicts` from the rules (default: run). */
function pipelineOf(handlers: EventHandlersConfig, verdicts: Record<string, RuleVerdict> = {}) {
  const table = new HandlerTable(handlers, registry, {
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 25, jitter: 0 },
    timeoutMs: 0,
  });
  return new HandlerPipeline({
    plans: table,
    decode: (payload) => serializer.deserialize(payload),
    runner: new HandlerRunner(async () => {}, silentLogger),
    rules: { verdict: (handler) => verdicts[handler] ?? 'run' },
    settings: { maxDeliveries: MAX_DELIVERIES },
    logger: silentLogger,
  });
}

const event = PipeItem.create({ n: 1 });
const payload = serializer.serialize(event).payload;

/** Work for `event`'s whole sync chain, first delivery and attempt, unless overridden. */
const work = (over: Partial<PipelineWork> = {}): PipelineWork => ({
  payload,
  target: { kind: 'event', from: 0 },
  attempt: 1,
  failures: [],
  deliveries: 1,
  ...over,
});

const ordered = (afterLastAttempt: AfterLastAttempt): PipelineWork['ordered'] => ({
  ordering: { key: 'pipe:1', seq: 7 },
  afterLastAttempt: () => afterLastAttempt,
});

/** The settled steps in short: `dead-letter <handler> <reason>` or `drop <handler>`. */
const settledOf = (outcome: PipelineOutcome) =>
  outcome.settled.map((s) =>
    s.op === 'dead-letter'
      ? `dead-letter ${s.letter.handler ?? s.letter.kind} ${s.letter.reason}`
      : `drop ${s.handler.name}`,
  );

describe('the handler pipeline decides', () => {
  it('work delivered more than maxDeliveries times runs nothing: each handler it covers is dead-lettered as crashed, async ones still fan out', async () => {
    const rec = new Recorder();
    const p = pipelineOf({
      'PIPE.ITEM': [[rec.handler('a'), true], [rec.handler('b'), true], rec.handler('c')],
    });

    const atLimit = await p.run(work({ deliveries: MAX_DELIVERIES }));
    expect(rec.runs.map((r) => r.handler)).toEqual(['a', 'b']);
    expect(atLimit.next).toEqual({ op: 'done' });

    const past = await p.run(work({ deliveries: MAX_DELIVERIES + 1 }));
    expect(rec.runs).toHaveLength(2);
    expect(settledOf(past)).toEqual(['dead-letter a crashed', 'dead-letter b crashed']);
    expect(past.fanOut.map((h) => h.name)).toEqual(['c']);
    expect(past.next).toEqual({ op: 'done' });
    const [letter] = past.settled.map((s) => (s.op === 'dead-letter' ? s.letter : undefined));
    expect(letter?.id).toBe(`${event.id}.a`);
    expect(letter?.attempts.map((a) => [a.attempt, a.name, a.code])).toEqual([
      [1, 'HandlerCrashedError', 'COMMITBUS_HANDLER_CRASHED'],
    ]);
    expect(letter?.error).toContain(
      `delivered ${MAX_DELIVERIES + 1} times (handlers.maxDeliveries ${MAX_DELIVERIES})`,
    );
  });

  it("a job's work delivered too often keeps its earlier failures in its crashed letter", async () => {
    const rec = new Recorder();
    const p = pipelineOf({ 'PIPE.ITEM': [{ handler: rec.handler('job'), attempts: 5 }] });
    const earlier = [attemptFailure(new Error('first try'), 1)];
    const outcome = await p.run(
      work({ target: { kind: 'handler', handler: 'job' }, attempt: 2, failures: earlier, deliveries: 9 }),
    );
    expect(rec.runs).toEqual([]);
    const step = outcome.settled[0];
    expect(
      step?.op === 'dead-letter' && step.letter.attempts.map((a) => [a.attempt, a.error.slice(0, 14)]),
    ).toEqual([
      [1, 'first try'],
      [2, 'handler "job" '],
    ]);
  });

  it('an ordered event delivered too often halts its key at the first handler under halt, and is dead-lettered under skip', async () => {
    const rec = new Recorder();
    const p = pipelineOf({
      'PIPE.ITEM': [
        [rec.handler('a'), true],
        [rec.handler('b'), true],
      ],
    });
    const from1 = { target: { kind: 'event', from: 1 }, deliveries: 4 } as const;

    const halted = await p.run(work({ ...from1, ordered: ordered('halt') }));
    expect(halted.settled).toEqual([]);
    expect(halted.next).toMatchObject({ op: 'halt', handler: 'b', index: 1, attempt: 1, reason: 'crashed' });

    const skipped = await p.run(work({ ...from1, ordered: ordered('skip') }));
    expect(settledOf(skipped)).toEqual(['dead-letter b crashed']);
    expect(skipped.next).toEqual({ op: 'done' });
    expect(rec.runs).toEqual([]);
  });

  it('a payload that cannot be decoded: an undecodable letter from a drain, a handler letter from a job, a halt in a lane', async () => {
    const p = pipelineOf({ 'PIPE.ITEM': [defineNoop('a')] });
    const unknownKey = payload.replace('"PIPE.ITEM"', '"PIPE.GONE"');

    const drained = await p.run(work({ payload: unknownKey }));
    expect(drained.event).toBeUndefined();
    expect(settledOf(drained)).toEqual(['dead-letter undecodable unknown-event-type']);

    const job = await p.run(work({ payload: 'not json', target: { kind: 'handler', handler: 'a' } }));
    expect(settledOf(job)).toEqual(['dead-letter a malformed']);

    const lane = await p.run(
      work({ payload: unknownKey, target: { kind: 'event', from: 2 }, ordered: ordered('skip') }),
    );
    expect(lane.settled).toEqual([]);
    expect(lane.next).toMatchObject({ op: 'halt', index: 2, reason: 'unknown-event-type' });
    expect(lane.next).not.toHaveProperty('handler');
  });

  it('a handler this worker does not know (or a retry of a handler no longer sync) is dead-lettered as unknown-handler on every path', async () => {
    const p = pipelineOf({ 'PIPE.ITEM': [defineNoop('a'), [defineNoop('s'), true]] });
    for (const w of [
      work({ target: { kind: 'handler', handler: 'gone' } }),
      work({ target: { kind: 'chain', handler: 'a' } }),
      work({ target: { kind: 'handler', handler: 'gone' }, ordered: ordered('halt') }),
    ]) {
      const outcome = await p.run(w);
      const name = w.target.kind === 'event' ? '' : w.target.handler;
      expect(settledOf(outcome)).toEqual([`dead-letter ${name} unknown-handler`]);
      expect(outcome.next).toEqual({ op: 'done' });
    }
  });

  it("a job's own attempts decide its last one, even if EVENT_HANDLERS gives the handler more", async () => {
    const p = pipelineOf({
      'PIPE.ITEM': [{ handler: defineFailing('job', () => new Error('down')), attempts: 5 }],
    });
    const outcome = await p.run(
      work({ target: { kind: 'handler', handler: 'job' }, attempt: 2, lastAttempt: 2 }),
    );
    expect(settledOf(outcome)).toEqual(['dead-letter job exhausted']);
  });

  it('a failure with attempts left is a retry step: which handler, where in the chain, every failure so far, its backoff', async () => {
    const p = pipelineOf({
      'PIPE.ITEM': [
        [defineNoop('a'), true],
        [defineFailing('b', () => new Error('b is down')), true],
      ],
    });
    const outcome = await p.run(work());
    expect(outcome.next).toMatchObject({ op: 'retry', index: 1, attempt: 1, delayMs: 25 });
    if (outcome.next.op !== 'retry') return;
    expect(outcome.next.handler.name).toBe('b');
    expect(outcome.next.failures.map((f) => [f.attempt, f.error])).toEqual([[1, 'b is down']]);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'a string'],
    ['an object', { code: 42 }],
  ])('%s thrown is wrapped in ThrownValueError that keeps it', async (_name, value) => {
    const p = pipelineOf({ 'PIPE.ITEM': [defineFailing('h', () => value)] });
    const outcome = await p.run(work({ target: { kind: 'handler', handler: 'h' } }));
    if (outcome.next.op !== 'retry') throw new Error(`expected a retry, got ${outcome.next.op}`);
    const error = outcome.next.error as ThrownValueError;
    expect(error).toBeInstanceOf(ThrownValueError);
    expect(error.thrown).toBe(value);
    expect(error.cause).toBe(value);
    expect(error.code).toBe('COMMITBUS_THROWN_VALUE');
  });

  it.each([
    ['an Error whose message is a list', () => Object.assign(new Error('x'), { message: ['a', 'b'] })],
    ['an Error whose name is a number', () => Object.assign(new Error('x'), { name: 7 })],
    ['an Error whose code getter throws', () => errorWithThrowing('code')],
    ['an Error whose message getter throws', () => errorWithThrowing('message')],
    ['an Error whose stack getter throws', () => errorWithThrowing('stack')],
    ['a Proxy whose every trap throws', () => throwingProxy()],
  ])('%s thrown is wrapped in ThrownValueError that keeps it and reads safely', async (_name, make) => {
    const value = make();
    const p = pipelineOf({ 'PIPE.ITEM': [defineFailing('h', () => value)] });
    const outcome = await p.run(work({ target: { kind: 'handler', handler: 'h' } }));
    if (outcome.next.op !== 'retry') throw new Error(`expected a retry, got ${outcome.next.op}`);
    const error = outcome.next.error as ThrownValueError;
    expect(error).toBeInstanceOf(ThrownValueError);
    expect(error.thrown).toBe(value);
    expect(typeof error.message).toBe('string');
    expect(outcome.next.failures.map((f) => [f.name, f.code, typeof f.error])).toEqual([
      ['ThrownValueError', 'COMMITBUS_THROWN_VALUE', 'string'],
    ]);
    // Read raw, not wrapped, the value still gives a failure and never throws.
    const raw = attemptFailure(value, 1);
    expect([typeof raw.error, typeof raw.name]).toEqual(['string', 'string']);
  });

  it('a chain goes on past blocked and given-up handlers, and stops at a paused one, keeping what it settled', async () => {
    const rec = new Recorder();
    const p = pipelineOf(
      {
        'PIPE.ITEM': [
          [rec.handler('blocked'), true],
          {
            handler: rec.handler('hopeless', () => {
              throw new NonRetryableError('never');
            }),
            sync: true,
          },
          [rec.handler('fine'), true],
          [rec.handler('paused'), true],
          [rec.handler('last'), true],
        ],
      },
      { blocked: 'block', paused: 'pause' },
    );
    const outcome = await p.run(work());
    expect(rec.runs.map((r) => r.handler)).toEqual(['hopeless', 'fine']);
    expect(settledOf(outcome)).toEqual(['drop blocked', 'dead-letter hopeless non-retryable']);
    expect(outcome.next).toMatchObject({ op: 'park', index: 3, attempt: 1 });
  });
});

function defineNoop(name: string) {
  return new Recorder().handler(name);
}

function defineFailing(name: string, thrown: () => unknown) {
  return new Recorder().handler(name, () => {
    throw thrown();
  });
}

function errorWithThrowing(field: 'code' | 'message' | 'stack'): Error {
  const error = new Error('x');
  Object.defineProperty(error, field, {
    get() {
      throw new TypeError(`cannot read ${field}`);
    },
  });
  return error;
}

function throwingProxy(): object {
  const trap = () => {
    throw new TypeError('trapped');
  };
  return new Proxy(new Error('x'), { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap });
}
