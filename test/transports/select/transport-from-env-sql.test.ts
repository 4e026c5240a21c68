/**
 * transportFromEnv and the SQL transport: `COMMITBUS_TRANSPORT=sql` runs the
 * bus on the DataSource given (`transportFromEnv({ dataSource })`), polling
 * every `COMMITBUS_SQL_POLL_MS`; `COMMITBUS_TRANSPORT=sqlite` on the file
 * `COMMITBUS_SQLITE_FILE` names; without a DataSource or a file, or with a
 * poll out of range, a `ConfigError` says what to pass or set. Called with no
 * argument, or without `env`, it reads `process.env`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Transport } from '../../../src/bus/transport.js';
import { ConfigError, defineHandler, loadConfigFromEnv, silentLogger } from '../../../src/index.js';
import { transportFromEnv } from '../../../src/transports/select/index.js';
import type { SqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { thrownBy } from '../../helpers/thrown-by.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

/** The SQL transport a bus opened, as the adapter built it. */
const sqlOf = (transport: Transport) => transport as unknown as SqlTransport;

/** Runs `fn` with `process.env` holding `vars` (undefined: unset), then puts it back. */
function withProcessEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const put = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  put(vars);
  try {
    return fn();
  } finally {
    put(before);
  }
}

const NO_REDIS = { REDIS_URL: undefined, COMMITBUS_REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined };

let n = 0;

describe.each(['postgres', 'sqlite'] as const)('COMMITBUS_TRANSPORT=sql (%s)', (which) => {
  it('runs the bus on the DataSource given, polling every COMMITBUS_SQL_POLL_MS', async () => {
    const env = { COMMITBUS_TRANSPORT: 'sql', COMMITBUS_SQL_POLL_MS: '50', REDIS_URL: 'redis://cache' };
    const adapter = transportFromEnv({ env, dataSource: databases[which] });
    expect(adapter.name).toBe('sql');
    const seen: string[] = [];
    const handler = defineHandler<RecordCreated>('env.seen', (e) => void seen.push(e.recid));
    const config = fastConfig({ name: `fromenv${++n}`, outbox: { enabled: false } });
    const { bus } = await buses.start({
      events: TEST_EVENTS,
      handlers: { 'RECORD.CREATE': [[handler, true]] },
      config,
      transport: adapter,
    });
    // The tests' SQLite DataSource is in memory: a bus on it runs in this process only.
    expect(bus.runsOn).toMatchObject({ transport: `sql-${which}`, inProcess: which === 'sqlite' });
    expect(sqlOf(bus.transport).pollMs).toBe(50);
    await bus.publish([recordCreated('e1'), recordCreated('e2')]);
    await waitFor('both events handled', () => seen.length === 2);
    expect(seen.sort()).toEqual(['e1', 'e2']);
  });

  it('polls every second when COMMITBUS_SQL_POLL_MS is unset or blank', () => {
    for (const env of [
      { COMMITBUS_TRANSPORT: 'sql' },
      { COMMITBUS_TRANSPORT: ' sql ', COMMITBUS_SQL_POLL_MS: ' ' },
    ]) {
      const bus = buses.create({
        events: TEST_EVENTS,
        transport: transportFromEnv({ env, dataSource: databases[which] }),
      });
      expect(sqlOf(bus.transport).pollMs).toBe(1_000);
    }
  });
});

describe('COMMITBUS_TRANSPORT=sqlite', () => {
  const file = join(tmpdir(), `commitbus-from-env-${randomUUID()}.sqlite`);
  afterAll(() => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('runs the bus on the file COMMITBUS_SQLITE_FILE names: a second bus from the same variables handles what the first published there', async () => {
    const env = {
      COMMITBUS_TRANSPORT: 'sqlite',
      COMMITBUS_SQLITE_FILE: ` ${file} `,
      COMMITBUS_SQL_POLL_MS: '20',
      REDIS_URL: 'redis://cache',
    };
    const config = fastConfig({ name: `fromenv${++n}`, outbox: { enabled: false } });
    const publisher = buses.create({ events: TEST_EVENTS, config, transport: transportFromEnv({ env }) });
    expect(publisher.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: false });
    expect(sqlOf(publisher.transport).pollMs).toBe(20);
    await publisher.publish([recordCreated('f1'), recordCreated('f2')]);
    expect(existsSync(file)).toBe(true);
    const seen: string[] = [];
    const handler = defineHandler<RecordCreated>('env.file-seen', (e) => void seen.push(e.recid));
    const { bus: worker } = await buses.start({
      events: TEST_EVENTS,
      handlers: { 'RECORD.CREATE': [[handler, true]] },
      config,
      transport: transportFromEnv({ env }),
    });
    expect(worker.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: false });
    await waitFor('both events handled by the second bus', () => seen.length === 2);
    expect(seen.sort()).toEqual(['f1', 'f2']);
  });

  it('takes the file with COMMITBUS_TRANSPORT unset and no Redis named, never SQLite in memory instead', () => {
    const env = { COMMITBUS_SQLITE_FILE: file, COMMITBUS_SQL_POLL_MS: '30' };
    expect(transportFromEnv({ env })).toMatchObject({ name: 'sqlite', inProcess: false });
    const bus = buses.create({ events: TEST_EVENTS, transport: transportFromEnv({ env }) });
    expect(bus.runsOn).toMatchObject({ transport: 'sql-sqlite', inProcess: false });
    expect(sqlOf(bus.transport).pollMs).toBe(30);
    // A Redis named still wins, and COMMITBUS_TRANSPORT=memory still means memory.
    expect(transportFromEnv({ env: { ...env, REDIS_URL: 'redis://cache' } }).name).toBe('redis');
    expect(transportFromEnv({ env: { ...env, COMMITBUS_TRANSPORT: 'memory' } })).toMatchObject({
      name: 'sqlite',
      inProcess: true,
    });
    expect(transportFromEnv({ env: { COMMITBUS_SQLITE_FILE: ' ' } })).toMatchObject({ inProcess: true });
  });

  it.each([
    ['unset', {}],
    ['blank', { COMMITBUS_SQLITE_FILE: '  ' }],
  ])('refuses COMMITBUS_SQLITE_FILE %s with a ConfigError naming the variable', (_, vars) => {
    const error = thrownBy(() => transportFromEnv({ env: { COMMITBUS_TRANSPORT: 'sqlite', ...vars } }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^COMMITBUS_TRANSPORT=sqlite runs the bus on a SQLite file .*: set COMMITBUS_SQLITE_FILE to its path/,
    );
  });
});

describe('transportFromEnv refusing what the SQL transport cannot run on', () => {
  it('says to pass the DataSource when COMMITBUS_TRANSPORT=sql is given none', () => {
    const error = thrownBy(() => transportFromEnv({ env: { COMMITBUS_TRANSPORT: 'sql' } }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^COMMITBUS_TRANSPORT=sql runs the bus on your database, so transportFromEnv needs its TypeORM DataSource: transportFromEnv\(\{ dataSource \}\)/,
    );
  });

  it.each(['abc', '5', '9', '3600001', '1.5', '-10', '1e3', '0x40'])(
    'refuses COMMITBUS_SQL_POLL_MS=%s with a ConfigError naming the variable and its range',
    (raw) => {
      const env = { COMMITBUS_TRANSPORT: 'sql', COMMITBUS_SQL_POLL_MS: raw };
      expect(() => transportFromEnv({ env, dataSource: databases.sqlite })).toThrow(
        new ConfigError(
          `COMMITBUS_SQL_POLL_MS must be a whole number of milliseconds from 10 to 3600000 (how often a SQL worker looks for work no wake-up told it of), got ${JSON.stringify(raw)}`,
        ),
      );
    },
  );

  it('takes the bounds themselves', () => {
    for (const raw of ['10', '3600000']) {
      const env = { COMMITBUS_TRANSPORT: 'sql', COMMITBUS_SQL_POLL_MS: raw };
      const bus = buses.create({
        events: TEST_EVENTS,
        transport: transportFromEnv({ env, dataSource: databases.sqlite }),
      });
      expect(sqlOf(bus.transport).pollMs).toBe(Number(raw));
    }
  });

  it('refuses the variables given as the argument itself, saying to pass them as { env }', () => {
    const error = thrownBy(() => transportFromEnv({ COMMITBUS_TRANSPORT: 'sql' } as never));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "transportFromEnv has no option 'COMMITBUS_TRANSPORT'; its options are env and dataSource: pass variables as transportFromEnv({ env })",
    );
    expect(() => transportFromEnv(process.env as never)).toThrow(ConfigError);
    expect(() => transportFromEnv(null as never)).toThrow(/takes an object of options/);
  });
});

describe('transportFromEnv without env', () => {
  it('reads process.env when called with no argument', () => {
    withProcessEnv({ ...NO_REDIS, COMMITBUS_TRANSPORT: 'sql' }, () => {
      expect(() => transportFromEnv()).toThrow(/COMMITBUS_TRANSPORT=sql runs the bus on your database/);
    });
    withProcessEnv({ ...NO_REDIS, COMMITBUS_TRANSPORT: 'kafka' }, () => {
      expect(() => transportFromEnv()).toThrow(/COMMITBUS_TRANSPORT must be one of/);
    });
    withProcessEnv({ ...NO_REDIS, COMMITBUS_TRANSPORT: undefined, REDIS_URL: 'redis://cache:6390' }, () => {
      expect(transportFromEnv().name).toBe('redis');
    });
    withProcessEnv({ ...NO_REDIS, COMMITBUS_TRANSPORT: undefined }, () => {
      expect(transportFromEnv()).toMatchObject({ name: 'sqlite', inProcess: true });
    });
  });

  it('reads process.env when given only the DataSource, its poll too', () => {
    const bus = withProcessEnv({ COMMITBUS_TRANSPORT: 'sql', COMMITBUS_SQL_POLL_MS: '75' }, () =>
      buses.create({ events: TEST_EVENTS, transport: transportFromEnv({ dataSource: databases.sqlite }) }),
    );
    expect(bus.runsOn.transport).toBe('sql-sqlite');
    expect(sqlOf(bus.transport).pollMs).toBe(75);
  });
});

describe('loadConfigFromEnv and COMMITBUS_TRANSPORT=sql', () => {
  it('takes sql as a transport name, naming no Redis', () => {
    const config = loadConfigFromEnv({ COMMITBUS_TRANSPORT: 'sql' }, {}, silentLogger);
    const bus = buses.create({
      events: TEST_EVENTS,
      config,
      transport: transportFromEnv({ env: { COMMITBUS_TRANSPORT: 'sql' }, dataSource: databases.postgres }),
    });
    expect(bus.runsOn.transport).toBe('sql-postgres');
  });
});
