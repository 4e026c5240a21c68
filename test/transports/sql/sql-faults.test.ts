/**
 * Faults of the database under the SQL transport: on PostgreSQL a worker
 * whose connections are killed (`pg_terminate_backend`) keeps running and
 * claiming, and a database that goes away makes the bus's reads fail soon
 * with `TransportUnavailableError` (never hang) until it is back, when claims
 * resume; on SQLite the outbox relay and the worker of one process share the
 * one connection without waiting for each other.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMITBUS_ENTITIES, defineHandler, type EventHandlersConfig } from '../../../src/index.js';
import { SqlDb, sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { leaveOutboxRow, outboxRows } from '../../helpers/outbox.js';
import { PG } from '../../helpers/postgres.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await buses.closeAll();
  for (const close of closing.splice(0)) await close();
});

const bus = () => `faults${randomBytes(4).toString('hex')}`;

/** A handler table whose one sync handler records each record id it handles. */
function recording(seen: Set<string>): EventHandlersConfig {
  return {
    'RECORD.CREATE': [[defineHandler<RecordCreated>('index', (e) => void seen.add(e.recid)), true]],
  };
}

/** A DataSource on the test's PostgreSQL schema, through `port` and named `application` on the server. */
async function pgDataSource(application: string, port = PG.port): Promise<DataSource> {
  const schema = (databases.postgres.options as { schema?: string }).schema;
  const dataSource = new DataSource({
    type: 'postgres',
    ...PG,
    port,
    username: PG.user,
    schema,
    applicationName: application,
    connectTimeoutMS: 2_000,
    entities: [...COMMITBUS_ENTITIES],
  });
  await dataSource.initialize();
  closing.push(async () => {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => {});
  });
  return dataSource;
}

/** A TCP relay to PostgreSQL on a port of its own that can be cut (the database goes away) and restored. */
class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(PG.port, PG.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => this.sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address !== null && typeof address === 'object') this.port = address.port;
    this.server = server;
  }

  /** Stops listening and drops every connection, as a server that went away. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server !== undefined) await new Promise((resolve) => server.close(resolve));
  }
}

describe('the SQL transport on PostgreSQL when connections die', () => {
  it('a worker whose connections are terminated again and again keeps running and handles every event', async () => {
    const name = bus();
    const application = `cb-storm-${randomBytes(4).toString('hex')}`;
    const seen = new Set<string>();
    const config = fastConfig({ name, outbox: { enabled: false }, drains: { claimStaleAfterMs: 200 } });
    const workerDb = await pgDataSource(application);
    await buses.start({
      events: [...TEST_EVENTS],
      handlers: recording(seen),
      config,
      transport: sqlTransport({ dataSource: workerDb, pollMs: 20 }),
    });
    const publisher = buses.create({
      events: [...TEST_EVENTS],
      handlers: recording(new Set()),
      config,
      transport: sqlTransport({ dataSource: databases.postgres, pollMs: 20 }),
    });
    let terminated = 0;
    for (let round = 0; round < 10; round++) {
      await publisher.publish(Array.from({ length: 10 }, (_, i) => recordCreated(`r${round}-${i}`)));
      const [row] = await databases.postgres.query(
        'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1',
        [application],
      );
      terminated += Number(row.n);
    }
    expect(terminated).toBeGreaterThan(0);
    await waitFor('every event handled', () => seen.size === 100, { timeoutMs: 20_000 });
    await publisher.whenIdle(20_000);
  });

  it('a database gone away makes reads fail soon with TransportUnavailableError; claims resume once it is back', async () => {
    const name = bus();
    const relay = new Relay();
    await relay.open();
    closing.push(() => relay.cut());
    const seen = new Set<string>();
    // A claim whose reply was lost in the cut is taken over once its lease lapses: short leases.
    const config = fastConfig({
      name,
      outbox: { enabled: false },
      drains: { claimStaleAfterMs: 1_000 },
      handlers: { lockDurationMs: 2_000 },
    });
    const workerDb = await pgDataSource(`cb-away-${randomBytes(4).toString('hex')}`, relay.port);
    const { bus: worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers: recording(seen),
      config,
      transport: sqlTransport({ dataSource: workerDb, pollMs: 20 }),
    });
    const publisher = buses.create({
      events: [...TEST_EVENTS],
      handlers: recording(new Set()),
      config,
      transport: sqlTransport({ dataSource: databases.postgres, pollMs: 20 }),
    });
    await publisher.publish([recordCreated('before')]);
    await waitFor('the first event handled', () => seen.has('before'));

    await relay.cut();
    const startedAt = Date.now();
    await expect(worker.whenIdle(60_000)).rejects.toMatchObject({ code: 'COMMITBUS_TRANSPORT_UNAVAILABLE' });
    await expect(worker.status()).rejects.toMatchObject({ code: 'COMMITBUS_TRANSPORT_UNAVAILABLE' });
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    await publisher.publish([recordCreated('while-away')]);

    await relay.open();
    await waitFor('the event published while the database was away handled', () => seen.has('while-away'), {
      timeoutMs: 20_000,
    });
    await worker.whenIdle(20_000);
  });
});

describe('the history and the audit trail on PostgreSQL when the database is away', () => {
  it('bus.history() and bus.audit.list() fail soon with TransportUnavailableError, and read again once it is back', async () => {
    const relay = new Relay();
    await relay.open();
    closing.push(() => relay.cut());
    const dataSource = await pgDataSource(`cb-history-away-${randomBytes(4).toString('hex')}`, relay.port);
    const reader = buses.create({
      events: [...TEST_EVENTS],
      config: fastConfig({ name: bus() }),
      transport: sqlTransport({ dataSource, pollMs: 20 }),
    });
    expect(await reader.history({ sinceMs: 60_000 })).not.toHaveLength(0);
    expect(await reader.audit.list()).toEqual([]);

    await relay.cut();
    const startedAt = Date.now();
    await expect(reader.history()).rejects.toMatchObject({ code: 'COMMITBUS_TRANSPORT_UNAVAILABLE' });
    await expect(reader.audit.list()).rejects.toMatchObject({ code: 'COMMITBUS_TRANSPORT_UNAVAILABLE' });
    expect(Date.now() - startedAt).toBeLessThan(30_000);

    await relay.open();
    await waitFor(
      'the history read again',
      () =>
        reader.history().then(
          () => true,
          () => false,
        ),
      {
        timeoutMs: 20_000,
      },
    );
    expect(await reader.audit.list()).toEqual([]);
  });
});

describe('the SQL transport on SQLite with the outbox relay in the worker process', () => {
  it('the relay publishes a row a dead publisher left while the worker drains, neither waiting for the other', async () => {
    const name = bus();
    const seen = new Set<string>();
    const dataSource = databases.sqlite;
    const config = fastConfig({ name, outbox: { graceMs: 1_000, relayEveryMs: 20 } });
    const transport = () => sqlTransport({ dataSource, pollMs: 20 });
    // An event as a publisher encodes it, left in the outbox as if it died after its commit.
    const encoder = buses.create({
      events: [...TEST_EVENTS],
      handlers: recording(new Set()),
      config,
      transport: transport(),
    });
    await encoder.publish([recordCreated('left')]);
    const sql = new SqlDb(dataSource);
    const events = sql.table('commitbus_events');
    const [row] = await sql.query<{ event_id: string; payload: string }>(
      `SELECT event_id, payload FROM ${events} WHERE bus = ?`,
      [name],
    );
    await sql.execute(`DELETE FROM ${events} WHERE bus = ?`, [name]);
    await sql.execute(`DELETE FROM ${sql.table('commitbus_event_ids')} WHERE bus = ?`, [name]);
    await leaveOutboxRow(dataSource, row?.event_id);
    await dataSource.query('UPDATE commitbus_outbox SET payload = ? WHERE event_id = ?', [
      row?.payload,
      row?.event_id,
    ]);

    const { bus: worker } = await buses.start({
      events: [...TEST_EVENTS],
      handlers: recording(seen),
      config,
      dataSource,
      transport: transport(),
    });
    await worker.publish(Array.from({ length: 20 }, (_, i) => recordCreated(`direct-${i}`)));
    await waitFor('the relayed event and the direct ones handled', () => seen.size === 21, {
      timeoutMs: 20_000,
    });
    expect(seen.has('left')).toBe(true);
    expect(await outboxRows(dataSource)).toEqual([]);
    await worker.whenIdle(10_000);
  });
});
