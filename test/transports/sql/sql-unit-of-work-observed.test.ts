/**
 * What follows a publish still happens for events a unit of work wrote in
 * its own transaction on the SQL transport, once each, after COMMIT:
 * `onPublished`, the metrics' count, and the trace (the handler's span
 * under the `create` span of the register, under the application's span).
 * And a unit of work on another DataSource than the transport's keeps
 * using the outbox: its row in its own transaction, then the publish.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { DataSource } from 'typeorm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  defineHandler,
  type Event,
  type EventHandlersConfig,
  SendEventOp,
  UnitOfWorkManager,
} from '../../../src/index.js';
import { createBusMetrics } from '../../../src/metrics/index.js';
import { sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { insertsInto, StatementRecorder } from '../../helpers/sql-statements.js';
import { busRows, createRecordsTable, insertRecord, TransactionWindow } from '../../helpers/sql-uow.js';
import { parentIdOf, traceBed } from '../../helpers/tracing.js';
import { waitFor } from '../../helpers/wait-for.js';

const recorder = new StatementRecorder();
const databases = sqlTestDatabases({ logger: recorder });
const tracing = traceBed();
const buses = new Buses();
afterEach(() => buses.closeAll());
beforeAll(async () => {
  await createRecordsTable(databases.postgres);
  await createRecordsTable(databases.sqlite);
});

let n = 0;

/** A bus on the SQL transport of `transportOn` with a worker, its units of work on `unitsOn`. */
async function started(transportOn: DataSource, unitsOn: DataSource) {
  const name = `sqlobs${++n}`;
  const handled: string[] = [];
  const published: Event[][] = [];
  const handlers: EventHandlersConfig = {
    'RECORD.CREATE': [[defineHandler<RecordCreated>('index', (e) => void handled.push(e.recid)), true]],
  };
  const { bus } = await buses.start({
    events: [...TEST_EVENTS],
    handlers,
    config: fastConfig({ name }),
    transport: sqlTransport({ dataSource: transportOn, pollMs: 50 }),
    dataSource: unitsOn,
    onPublished: (events) => void published.push([...events]),
  });
  return { name, bus, handled, published, units: new UnitOfWorkManager({ bus }) };
}

/** The one ended span of `spans` whose event id is `id`. */
function spanOf(spans: readonly ReadableSpan[], id: string): ReadableSpan | undefined {
  return spans.find((span) => span.attributes['commitbus.event.id'] === id);
}

describe.each(['postgres', 'sqlite'] as const)('events written in the transaction (%s)', (which) => {
  it('onPublished, the metrics and the trace see each event once, after COMMIT', async () => {
    const dataSource = databases[which];
    const { bus, handled, published, units } = await started(dataSource, dataSource);
    const metrics = createBusMetrics(bus);
    const events = ['t1', 't2', 't3'].map((recid) => recordCreated(recid));
    let publishedBeforeCommit = -1;
    const { span: app } = await tracing.inSpan('app request', () =>
      units.run(async (uow) => {
        for (const event of events) {
          await insertRecord(uow, event.recid);
          await uow.register(new SendEventOp(event));
        }
        await uow.register({
          onCommit: () => {
            publishedBeforeCommit = published.length;
          },
        });
      }),
    );
    await waitFor('the three to be handled', () => handled.length === 3);
    await bus.whenIdle();
    expect(publishedBeforeCommit).toBe(0);
    expect(published.map((batch) => batch.map((e) => e.id))).toEqual([events.map((e) => e.id)]);
    const counted = (await metrics.published.get()).values;
    expect(counted.map((v) => [v.labels.key, v.value])).toEqual([['RECORD.CREATE', 3]]);

    const created = tracing.named('create RECORD.CREATE');
    const processed = tracing.named('process RECORD.CREATE');
    expect([created.length, processed.length, tracing.named('send RECORD.CREATE').length]).toEqual([3, 3, 0]);
    for (const event of events) {
      const create = spanOf(created, event.id);
      expect(create && parentIdOf(create)).toBe(app.spanId);
      const process = spanOf(processed, event.id);
      expect(process && parentIdOf(process)).toBe(create?.spanContext().spanId);
      expect(process?.spanContext().traceId).toBe(app.traceId);
    }
  });
});

describe.each([
  ['postgres', 'sqlite'],
  ['sqlite', 'postgres'],
] as const)('a unit of work on another DataSource (transport on %s, unit of work on %s)', (on, other) => {
  it('keeps its events in its own outbox, then publishes them to the transport', async () => {
    const { name, handled, units } = await started(databases[on], databases[other]);
    const event = recordCreated('x1');
    const window = new TransactionWindow(recorder);
    let atCommit: { inOutbox: number; inTransport: number } | undefined;
    await units.run(async (uow) => {
      window.open(uow);
      await insertRecord(uow, 'x1');
      await uow.register(new SendEventOp(event));
      await uow.register(window.closer());
      // After COMMIT, before the flush publishes.
      await uow.register({
        onCommit: async () => {
          const inOutbox = (await busRows(databases[other], name, [event.id])).outbox;
          atCommit = { inOutbox, inTransport: (await busRows(databases[on], name, [])).events };
        },
      });
    });
    expect(atCommit).toEqual({ inOutbox: 1, inTransport: 0 });
    const statements = window.statements();
    expect([
      insertsInto(statements, 'commitbus_outbox'),
      insertsInto(statements, 'commitbus_events'),
    ]).toEqual([1, 0]);
    await waitFor('the worker to handle x1', () => handled.includes('x1'));
    await waitFor(
      'the published outbox row to be deleted',
      async () => (await busRows(databases[other], name, [event.id])).outbox === 0,
    );
  });
});
