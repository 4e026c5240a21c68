/**
 * What the README says of tracing beyond the plain path: a timed-out
 * handler's span, a re-driven handler dead letter, events a handler
 * publishes, and a `bus.publish` that fails.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  BusClosedError,
  defineHandler,
  type EventHandlersConfig,
  EventTooLargeError,
} from '../../src/index.js';
import { noteIdempotentSkip } from '../../src/tracing/handler-span.js';
import { noTracerProvider } from '../../src/tracing/tracer.js';
import { busConfigs, OUTBOX_TEST_EVENTS } from '../helpers/outbox.js';
import { Recorder } from '../helpers/recorder.js';
import { RecordCreated, RecordUpdated } from '../helpers/records.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { parentIdOf, traceBed } from '../helpers/tracing.js';
import type { TransportName } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, buses } = redisTestBed('i12trace2-claims');
const config = busConfigs(PREFIX);
const tracing = traceBed();
const TRANSPORTS: TransportName[] = ['sqlite', 'redis'];

/** The ended spans named `name`, once there are `count` of them. */
async function spans(name: string, count = 1): Promise<ReadableSpan[]> {
  await waitFor(`${count} span(s) ${name}`, () => tracing.named(name).length === count, {
    timeoutMs: 10_000,
    describe: () => tracing.spans().map((s) => s.name),
  });
  return tracing.named(name);
}

/** The `exception` events of `span`, as [type, message]. */
function exceptionsOf(span: ReadableSpan): unknown[][] {
  return span.events
    .filter((e) => e.name === 'exception')
    .map((e) => [e.attributes?.['exception.type'], e.attributes?.['exception.message']]);
}

describe.each(TRANSPORTS)('tracing claims on the %s transport', (kind) => {
  it('a handler that times out ends its span with HandlerTimeoutError and an error status', async () => {
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          // Settles only once its signal is aborted, after the run has timed out.
          handler: defineHandler(
            'claims.slow',
            (_event, ctx) =>
              new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve())),
          ),
          sync: true,
          attempts: 1,
          timeoutMs: 100,
        },
      ],
    };
    const { bus } = await buses.start({ events: OUTBOX_TEST_EVENTS, handlers, ...config(kind) });
    await tracing.inSpan('POST /records', () => bus.publish(RecordCreated.create({ recid: 'slow' })));
    const [span] = (await spans('process RECORD.CREATE')) as [ReadableSpan];
    await bus.whenIdle(10_000);

    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.status.message).toMatch(/claims\.slow.*100/);
    const [exception] = exceptionsOf(span);
    expect(exception?.[0]).toBe('HandlerTimeoutError');
  });

  it('a re-driven handler dead letter runs its handler under the span that published the event', async () => {
    const rec = new Recorder();
    let failing = true;
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        {
          handler: rec.handler('claims.flaky', () => {
            if (failing) throw new Error('database is down');
          }),
          sync: true,
          attempts: 1,
        },
      ],
    };
    const { bus } = await buses.start({ events: OUTBOX_TEST_EVENTS, handlers, ...config(kind) });
    const event = RecordCreated.create({ recid: 'redriven' });
    const { span: request } = await tracing.inSpan('POST /records', () => bus.publish(event));
    await waitFor('the dead letter', async () => (await bus.deadLetters.list()).length === 1, {
      timeoutMs: 10_000,
    });
    failing = false;
    expect(await bus.deadLetters.redrive({ kind: 'handler' })).toBe(1);
    const runs = await spans('process RECORD.CREATE', 2);
    await bus.whenIdle(10_000);

    const [publish] = (await spans('send RECORD.CREATE')) as [ReadableSpan];
    expect(parentIdOf(publish)).toBe(request.spanId);
    for (const run of runs) {
      expect(run.spanContext().traceId).toBe(request.traceId);
      expect(parentIdOf(run)).toBe(publish.spanContext().spanId);
    }
    expect(runs.map((run) => run.status.code).sort()).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    expect(rec.count('claims.flaky')).toBe(2);
  });

  it('events a handler publishes with ctx.publish are PRODUCER spans under its span, handled under them', async () => {
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [
          defineHandler('claims.chain', (event, ctx) =>
            ctx.publish([
              RecordUpdated.create({ recid: `${(event as RecordCreated).recid}-1` }),
              RecordUpdated.create({ recid: `${(event as RecordCreated).recid}-2` }),
            ]),
          ),
          true,
        ],
      ],
      'RECORD.UPDATE': [[defineHandler('claims.chained', () => {}), true]],
    };
    const { bus } = await buses.start({ events: OUTBOX_TEST_EVENTS, handlers, ...config(kind) });
    const { span: request } = await tracing.inSpan('POST /records', () =>
      bus.publish(RecordCreated.create({ recid: 'chain' })),
    );
    const followUps = await spans('process RECORD.UPDATE', 2);
    await bus.whenIdle(10_000);

    const [created] = (await spans('process RECORD.CREATE')) as [ReadableSpan];
    const published = await spans('send RECORD.UPDATE', 2);
    for (const publish of published) {
      expect(publish.kind).toBe(SpanKind.PRODUCER);
      expect(publish.spanContext().traceId).toBe(request.traceId);
      expect(parentIdOf(publish)).toBe(created.spanContext().spanId);
    }
    const publishIdOf = (id: unknown) =>
      published.find((s) => s.attributes['messaging.message.id'] === id)?.spanContext().spanId;
    for (const followUp of followUps) {
      expect(followUp.spanContext().traceId).toBe(request.traceId);
      expect(parentIdOf(followUp)).toBe(publishIdOf(followUp.attributes['messaging.message.id']));
    }
  });

  it('a bus.publish that fails (too large) ends its publish span with an error status; a closed bus makes none', async () => {
    const bus = buses.create({ events: OUTBOX_TEST_EVENTS, ...config(kind, { maxEventBytes: 300 }) });
    const big = RecordCreated.create({ recid: 'x'.repeat(400) });
    await expect(tracing.inSpan('POST /records', () => bus.publish(big))).rejects.toBeInstanceOf(
      EventTooLargeError,
    );
    const [tooLarge] = (await spans('send RECORD.CREATE')) as [ReadableSpan];
    expect(tooLarge.attributes['messaging.message.id']).toBe(big.id);
    expect(tooLarge.status.code).toBe(SpanStatusCode.ERROR);
    expect(exceptionsOf(tooLarge)).toEqual([['EventTooLargeError', expect.stringContaining(big.id)]]);

    // A closed bus refuses the publish before it starts: no publish span is left open or made.
    await bus.close();
    const late = RecordCreated.create({ recid: 'late' });
    const refused = await tracing.inSpan('POST /records', () => bus.publish(late)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BusClosedError);
    expect(
      tracing.named('send RECORD.CREATE').filter((s) => s.attributes['messaging.message.id'] === late.id),
    ).toEqual([]);
  });
});

describe('with a tracer provider registered', () => {
  it("commitbus knows it, and builds its spans' attributes", () => {
    expect(noTracerProvider()).toBe(false);
  });
});

describe('an idempotent handler run marked skipped', () => {
  it('is the span it is given, never the active one, and never once it has ended (the run timed out)', async () => {
    const app = trace.getTracer('test-app');
    const run = app.startSpan('run');
    noteIdempotentSkip(run);
    run.end();
    const timedOut = app.startSpan('timed out');
    timedOut.end();
    // The guard settles with 'skipped' after the run's span ended, in a context where another span is active.
    await tracing.inSpan('other', async () => noteIdempotentSkip(timedOut));

    const skippedOf = (name: string) => tracing.named(name)[0]?.attributes['commitbus.handler.skipped'];
    expect(['run', 'timed out', 'other'].map(skippedOf)).toEqual([true, undefined, undefined]);
  });
});
