import { DataSource, type EntitySchema } from 'typeorm';
import type { Transport } from '../../src/bus/transport.js';
import type { AppendResult } from '../../src/events/outgoing-event.js';
import {
  COMMITBUS_ENTITIES,
  type CommitbusOptions,
  type EventBusOptions,
  type EventHandlersConfig,
  UnitOfWorkManager,
} from '../../src/index.js';
import { type OutboxRecord, OutboxRecordEntity } from '../../src/outbox/outbox-record.entity.js';
import { type Buses, fastConfig } from './buses.js';
import type { Recorder } from './recorder.js';
import { RecordCreated, RecordingTransport, RecordUpdated } from './records.js';
import { type TransportName, testTransport } from './transports.js';

// biome-ignore lint/complexity/noBannedTypes: TypeORM takes entity classes as Function
type Entities = (Function | EntitySchema)[];

/** One `Transport.publish` call as {@link tapPublishes} saw it. */
export interface TappedPublish {
  /** The events' ids, in the order given. */
  readonly ids: string[];
  /** Each event's delivery time (epoch ms), `undefined` for at once. */
  readonly deliverAt: (number | undefined)[];
  /** What the transport did with them. */
  readonly result: AppendResult;
  /** `Date.now()` when the call was made. */
  readonly at: number;
}

/**
 * Records every successful `publish` of `transport` (the bus's own calls and
 * its outbox relay's alike) and returns the list it fills. The transport
 * still does the work.
 */
export function tapPublishes(transport: Transport): TappedPublish[] {
  const publishes: TappedPublish[] = [];
  const publish = transport.publish.bind(transport);
  transport.publish = async (events) => {
    const at = Date.now();
    const result = await publish(events);
    publishes.push({ ids: events.map((e) => e.id), deliverAt: events.map((e) => e.deliverAt), result, at });
    return result;
  };
  return publishes;
}

/** The rows of `commitbus_outbox`, in relay order: `(createdAt, registrationOrder)`. */
export function outboxRows(dataSource: DataSource): Promise<OutboxRecord[]> {
  return dataSource
    .getRepository(OutboxRecordEntity)
    .find({ order: { createdAt: 'ASC', registrationOrder: 'ASC' } });
}

/** Deletes every outbox row. */
/** Inserts the outbox row a publisher that died a minute ago left (a relay takes it only after `outboxGraceMs`). */
export async function leaveOutboxRow(dataSource: DataSource, eventId = 'left-behind'): Promise<void> {
  await dataSource.getRepository(OutboxRecordEntity).insert({
    eventId,
    createdAt: Date.now() - 60_000,
    registrationOrder: 0,
    handlingKey: 'RECORD.CREATE',
    payload: '{}',
    deliverAt: null,
    orderKey: null,
    orderPosition: null,
  });
}

export async function clearOutbox(dataSource: DataSource): Promise<void> {
  await dataSource.getRepository(OutboxRecordEntity).clear();
}

/** An in-memory SQLite DataSource with `entities` synchronized (commitbus's own added unless told not to). */
export function openSqlite(entities: Entities, { commitbus = true } = {}): Promise<DataSource> {
  return new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: commitbus ? [...entities, ...COMMITBUS_ENTITIES] : entities,
    synchronize: true,
  }).initialize();
}

/**
 * Config of a publisher that is to die: its own relay never takes the rows it
 * left (and its dedupe window, which must outlast the grace period, does too).
 */
export const DEAD_PUBLISHER = { outboxGraceMs: 3_600_000, dedupeWindowMs: 7_200_000 } as const;

/** Every event class of the outbox tests (`RECORD.CREATE`, `RECORD.UPDATE`). */
export const OUTBOX_TEST_EVENTS = [RecordCreated, RecordUpdated];

/**
 * A bus keeping its outbox in `dataSource`, on a transport that records each
 * publish (its first `failFirst` publishes throw), and units of work on it.
 */
export function recordingBus(
  buses: Buses,
  dataSource: DataSource,
  failFirst = 0,
  config: CommitbusOptions = {},
) {
  const transport = new RecordingTransport(failFirst);
  const bus = buses.create({ events: OUTBOX_TEST_EVENTS, dataSource, config }, transport);
  return { transport, bus, uows: new UnitOfWorkManager({ dataSource, bus }) };
}

/** Options of test buses under `prefix` on a transport, each with a bus name of its own. */
export function busConfigs(prefix: string) {
  let count = 0;
  return (
    transport: TransportName,
    overrides: CommitbusOptions = {},
  ): Pick<EventBusOptions, 'config' | 'transport'> => ({
    config: fastConfig({ prefix, name: `bus${++count}`, delayedPollMs: 20, ...overrides }),
    transport: testTransport(transport),
  });
}

/** `RECORD` handlers: one sync `record.audit` recording each run in `rec` and its time in `handledAt`. */
export function timedHandlers(rec: Recorder, handledAt: Map<string, number>): EventHandlersConfig {
  return {
    RECORD: [
      [
        rec.handler('record.audit', (event) => {
          handledAt.set(event.id, Date.now());
        }),
        true,
      ],
    ],
  };
}
