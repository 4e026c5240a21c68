/**
 * Options grouped by what they tune: resolution, the deprecated flat names
 * (they still work, warn once per name, and may not be given twice), the
 * options that used to do two jobs, and an environment variable for every
 * option (derived from DEFAULT_CONFIG, so an option added without one fails).
 */
import { describe, expect, it } from 'vitest';
import { startRouter } from '../../src/bus/router.js';
import { getPath } from '../../src/config/flat-option-names.js';
import { envNameOf, envVarsOf, optionLeaves } from '../../src/config/option-env.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { ConfigError, createEventBus, DEFAULT_CONFIG, loadConfigFromEnv } from '../../src/index.js';
import { createTestBus } from '../../src/testing/index.js';
import type { SqlTransport } from '../../src/transports/sql/index.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { recordingLogger } from '../helpers/recording-logger.js';

describe('grouped options', () => {
  it('resolve to what the code reads (`bus.config`), each option in its own group', () => {
    const config = resolveOptions({
      redis: { prefix: 'i12config-groups' },
      drains: { maxConcurrent: 2, batchSize: 7 },
      handlers: { lockDurationMs: 4_000, backoff: { delayMs: 5 } },
      publishing: { delayedPollMs: 40 },
      outbox: { enabled: false },
      ordering: { mode: 'on', leaseMs: 9_000, upkeepMs: 300 },
      idempotency: { retentionMs: 60_000 },
    });
    expect(config).toMatchObject({
      redis: { prefix: 'i12config-groups' },
      drains: { maxConcurrent: 2, batchSize: 7 },
      // The handler job lock and the ordering lease are two options now, as are the delayed-event release and lane upkeep.
      handlers: { lockDurationMs: 4_000, backoff: { type: 'exponential', delayMs: 5, jitter: 0.5 } },
      ordering: { mode: 'on', leaseMs: 9_000, upkeepMs: 300 },
      publishing: { delayedPollMs: 40 },
      outbox: { enabled: false },
      idempotency: { retentionMs: 60_000 },
    });
  });

  it('fill in every default, grouped as DEFAULT_CONFIG', () => {
    expect(resolveOptions({})).toEqual(DEFAULT_CONFIG);
    expect(resolveOptions({ handlers: { attempts: 9 } }).handlers).toEqual({
      ...DEFAULT_CONFIG.handlers,
      attempts: 9,
    });
  });

  it('refuse an unknown option or group field, naming it', () => {
    expect(() => resolveOptions({ drains: { maxEventz: 5 } } as never)).toThrow(
      'unknown option drains.maxEventz: the drains options are maxEvents, ttlMs, batchSize',
    );
    expect(() => resolveOptions({ lockDuration: 5 } as never)).toThrow('unknown option "lockDuration"');
    expect(() => resolveOptions({ drains: 5 } as never)).toThrow(
      'drains must be an object of drains options',
    );
  });

  it('refuse a lease that a renewal cannot keep', () => {
    expect(() => resolveOptions({ ordering: { leaseMs: 200, upkeepMs: 250 } })).toThrow(
      'ordering.leaseMs (200) must exceed ordering.upkeepMs (250)',
    );
  });
});

describe('the ordering lease', () => {
  /** The deadline of the one worker lease a bus's worker took, minus when it was taken. */
  async function leaseTaken(config: Parameters<typeof createEventBus>[0]['config']): Promise<number> {
    const bus = createEventBus({ events: TEST_EVENTS, logger: recordingLogger(), config });
    const before = Date.now();
    const worker = await bus.startWorker({ handleSignals: false });
    const store = (bus.transport as SqlTransport).ordering;
    const { leases } = await store.inspect([], []);
    await worker.close();
    await bus.close();
    const [until] = [...leases.values()];
    return (until as number) - before;
  }

  it('is ordering.leaseMs, not the handler job lock', async () => {
    const lease = await leaseTaken({
      ordering: { mode: 'on', leaseMs: 5_000 },
      handlers: { lockDurationMs: 60_000 },
    });
    expect(lease).toBeGreaterThanOrEqual(5_000);
    expect(lease).toBeLessThan(6_000);
  });

  it('is still the deprecated lockDurationMs when ordering.leaseMs is not given', async () => {
    const lease = await leaseTaken({ ordering: { mode: 'on' }, lockDurationMs: 8_000 });
    expect(lease).toBeGreaterThanOrEqual(8_000);
    expect(lease).toBeLessThan(9_000);
  });
});

describe('the deprecated flat names', () => {
  it('still work, and each is warned about once per logger, naming its new place', () => {
    const logger = recordingLogger();
    const config = { lockDurationMs: 8_000, maxEvents: 10, outbox: false, ordering: 'off' as const };
    const first = createEventBus({ events: TEST_EVENTS, logger, config });
    const second = createEventBus({ events: TEST_EVENTS, logger, config });
    expect(first.config).toMatchObject({
      drains: { maxEvents: 10 },
      outbox: { enabled: false },
      ordering: { mode: 'off' },
      handlers: { lockDurationMs: 8_000 },
    });
    // lockDurationMs keeps its old second job (the ordering lease) while ordering.leaseMs is not given.
    expect(second.config.ordering.leaseMs).toBe(8_000);
    expect(logger.at('warn').map((w) => w.message)).toEqual([
      'commitbus option "lockDurationMs" is deprecated: use handlers.lockDurationMs (and ordering.leaseMs); the flat name is removed in the next minor version',
      'commitbus option "maxEvents" is deprecated: use drains.maxEvents; the flat name is removed in the next minor version',
      'commitbus option "outbox" is deprecated: use outbox.enabled; the flat name is removed in the next minor version',
      'commitbus option "ordering" is deprecated: use ordering.mode; the flat name is removed in the next minor version',
    ]);
    expect(logger.at('warn')[0]?.fields).toEqual({
      option: 'lockDurationMs',
      replacement: 'handlers.lockDurationMs (and ordering.leaseMs)',
    });
  });

  it('delayedPollMs sets lane upkeep too unless ordering.upkeepMs is given', () => {
    expect(resolveOptions({ delayedPollMs: 40 })).toMatchObject({
      publishing: { delayedPollMs: 40 },
      ordering: { upkeepMs: 40 },
    });
    expect(resolveOptions({ delayedPollMs: 40, ordering: { upkeepMs: 500 } })).toMatchObject({
      publishing: { delayedPollMs: 40 },
      ordering: { upkeepMs: 500 },
    });
  });

  it('may not be given beside the grouped name of the same option', () => {
    expect(() => resolveOptions({ maxEvents: 5, drains: { maxEvents: 6 } })).toThrow(ConfigError);
    expect(() => resolveOptions({ lockDurationMs: 5_000, handlers: { lockDurationMs: 6_000 } })).toThrow(
      'handlers.lockDurationMs is given twice, as handlers.lockDurationMs and by its deprecated flat name lockDurationMs: keep handlers.lockDurationMs only',
    );
    expect(() =>
      createEventBus({ events: TEST_EVENTS, config: { prefix: 'a', redis: { prefix: 'b' } } }),
    ).toThrow('redis.prefix is given twice');
  });

  it('may stand beside a spread copy of resolved options, which resolves as it was', () => {
    const logger = recordingLogger();
    const resolved = resolveOptions({
      handlers: { lockDurationMs: 9_000 },
      publishing: { delayedPollMs: 100 },
      ordering: { leaseMs: 7_000, upkeepMs: 300 },
    });
    const { drains: _drains, ...rest } = resolved;
    const bus = createEventBus({ events: TEST_EVENTS, logger, config: { ...rest, maxEvents: 5 } });
    expect(bus.config).toMatchObject({
      drains: { maxEvents: 5 },
      handlers: { lockDurationMs: 9_000 },
      ordering: { leaseMs: 7_000, upkeepMs: 300 },
      publishing: { delayedPollMs: 100 },
    });
    expect(bus.transport.name).toBe('sql-sqlite');
    const warned = logger.at('warn').map((w) => (w.fields as { option: string }).option);
    expect(warned).toEqual(['maxEvents']);
  });

  it('are gone where they were never options: the flat fields bus.config had', () => {
    expect(() => resolveOptions({ orderingLeaseMs: 7_000 } as never)).toThrow(
      'unknown option "orderingLeaseMs"',
    );
  });

  it('are not warned about in a configuration resolveOptions or loadConfigFromEnv made', () => {
    const logger = recordingLogger();
    createEventBus({
      events: TEST_EVENTS,
      logger,
      config: resolveOptions({ redis: { prefix: 'i12config-x' } }),
    });
    createEventBus({ events: TEST_EVENTS, logger, config: loadConfigFromEnv({ COMMITBUS_MAX_EVENTS: '3' }) });
    expect(logger.at('warn')).toEqual([]);
  });

  it('work in loadConfigFromEnv overrides and the test bus, warned on their logger', async () => {
    const logger = recordingLogger();
    expect(loadConfigFromEnv({}, { maxEvents: 4 }, logger).drains.maxEvents).toBe(4);
    const bus = await createTestBus({
      events: TEST_EVENTS,
      logger,
      config: { drains: { maxEvents: 3 }, blockMs: 20 },
    });
    expect(bus.config.drains).toMatchObject({ maxEvents: 3, blockMs: 20, scheduleEveryMs: 0 });
    expect(bus.transport.name).toBe('sql-sqlite');
    await bus.close();
    expect(logger.at('warn').map((w) => (w.fields as { option: string }).option)).toEqual([
      'maxEvents',
      'blockMs',
    ]);
  });

  it('reach startRouter too', async () => {
    // Refused before any connection: the grouped and flat prefix both given.
    await expect(startRouter({ prefix: 'a', redis: { prefix: 'b' } }, { roles: ['upkeep'] })).rejects.toThrow(
      'redis.prefix is given twice',
    );
  });
});

/** A value an option can take other than its default, as an environment string and as read. */
function sample(path: string, defaultValue: unknown): [string, unknown] {
  const enums: Record<string, string> = {
    'ordering.mode': 'on',
    'handlers.backoff.type': 'fixed',
    'redis.url': 'redis://i12config-host:6380',
  };
  if (path in enums) return [enums[path] as string, enums[path]];
  if (path === 'redis.cluster') return ['h1:7000, h2:7001', ['h1:7000', 'h2:7001']];
  if (path === 'handlers.backoff.jitter') return ['0.25', 0.25];
  if (typeof defaultValue === 'number') return [String(defaultValue + 1), defaultValue + 1];
  if (typeof defaultValue === 'boolean') return [String(!defaultValue), !defaultValue];
  if (typeof defaultValue === 'string') return [`${defaultValue}x`, `${defaultValue}x`];
  return expect.unreachable(`no sample value for ${path}: give the new option an environment variable`);
}

/** The variables of before the options were grouped: each must keep working. */
const OLDER_VARIABLES: Record<string, string> = {
  REDIS_URL: 'redis.url',
  REDIS_CLUSTER_NODES: 'redis.cluster',
  COMMITBUS_PREFIX: 'redis.prefix',
  COMMITBUS_MAX_EVENTS: 'drains.maxEvents',
  COMMITBUS_TTL_MS: 'drains.ttlMs',
  COMMITBUS_BATCH_SIZE: 'drains.batchSize',
  COMMITBUS_BLOCK_MS: 'drains.blockMs',
  COMMITBUS_MAX_CONCURRENT_DRAINS: 'drains.maxConcurrent',
  COMMITBUS_SCHEDULE_EVERY_MS: 'drains.scheduleEveryMs',
  COMMITBUS_CLAIM_STALE_AFTER_MS: 'drains.claimStaleAfterMs',
  COMMITBUS_ASYNC_CONCURRENCY: 'handlers.concurrency',
  COMMITBUS_DEFAULT_ATTEMPTS: 'handlers.attempts',
  COMMITBUS_MAX_DELIVERIES: 'handlers.maxDeliveries',
  COMMITBUS_HANDLER_TIMEOUT_MS: 'handlers.timeoutMs',
  COMMITBUS_LOCK_DURATION_MS: 'handlers.lockDurationMs',
  COMMITBUS_PUBLISH_ATTEMPTS: 'publishing.attempts',
  COMMITBUS_PUBLISH_BACKOFF_MS: 'publishing.backoffMs',
  COMMITBUS_MAX_EVENT_BYTES: 'publishing.maxEventBytes',
  COMMITBUS_DEDUPE_WINDOW_MS: 'publishing.dedupeWindowMs',
  COMMITBUS_DELAYED_POLL_MS: 'publishing.delayedPollMs',
  COMMITBUS_OUTBOX: 'outbox.enabled',
  COMMITBUS_OUTBOX_GRACE_MS: 'outbox.graceMs',
  COMMITBUS_OUTBOX_RELAY_EVERY_MS: 'outbox.relayEveryMs',
  COMMITBUS_OUTBOX_RELAY_BATCH_SIZE: 'outbox.relayBatchSize',
  COMMITBUS_ORDERING: 'ordering.mode',
  COMMITBUS_ORDERED_CONCURRENCY: 'ordering.concurrency',
  COMMITBUS_HANDLED_RETENTION_MS: 'idempotency.retentionMs',
  COMMITBUS_RULES_REFRESH_MS: 'scheduling.rulesRefreshMs',
};

describe('loadConfigFromEnv', () => {
  const leaves = optionLeaves();

  it('lists every option of DEFAULT_CONFIG', () => {
    expect(leaves.map((l) => l.path)).toContain('ordering.leaseMs');
    expect(leaves.map((l) => l.path)).toContain('handlers.backoff.jitter');
    expect(leaves.map((l) => l.path)).toContain('redis.cluster');
    expect(leaves.map((l) => l.path)).toContain('deadLetters.maxCount');
    expect(leaves.length).toBe(42);
  });

  it.each(leaves.map((leaf) => [leaf.path, leaf] as const))(
    'reads %s from its own variable, COMMITBUS_ and its path',
    (path, { defaultValue }) => {
      const variable = envNameOf(path);
      expect(envVarsOf(path)[0]).toBe(variable);
      const [raw, read] = sample(path, defaultValue);
      expect(getPath(loadConfigFromEnv({ [variable]: raw }), path)).toEqual(read);
    },
  );

  it.each(Object.entries(OLDER_VARIABLES))('still reads %s (%s)', (variable, path) => {
    const leaf = leaves.find((l) => l.path === path);
    const [raw, read] = sample(path, leaf?.defaultValue);
    expect(getPath(loadConfigFromEnv({ [variable]: raw }), path)).toEqual(read);
  });

  it.each(leaves.filter((l) => typeof l.defaultValue === 'number').map((l) => [l.path]))(
    'names the variable, the option %s and the value when it is not a number',
    (path) => {
      const variable = envNameOf(path);
      expect(() => loadConfigFromEnv({ [variable]: 'lots' })).toThrow(ConfigError);
      expect(() => loadConfigFromEnv({ [variable]: 'lots' })).toThrow(
        new RegExp(
          `^${variable} must be a (whole )?number.*got "lots" \\(option ${path.replace(/\./g, '\\.')}\\)$`,
        ),
      );
    },
  );

  it('names the option, its variable and the value when a value read is out of range', () => {
    expect(() => loadConfigFromEnv({ COMMITBUS_ORDERING_LEASE_MS: '0' })).toThrow(
      'ordering.leaseMs must be a positive integer, got 0 (env COMMITBUS_ORDERING_LEASE_MS)',
    );
    expect(() => loadConfigFromEnv({ COMMITBUS_HANDLERS_BACKOFF_TYPE: 'linear' })).toThrow(
      "handlers.backoff must be { type: 'fixed' | 'exponential'",
    );
    for (const raw of ['0x10', '1e3', '1.0', '+7', '9007199254740993']) {
      expect(() => loadConfigFromEnv({ COMMITBUS_DRAINS_BATCH_SIZE: raw }), raw).toThrow(
        `COMMITBUS_DRAINS_BATCH_SIZE must be a whole number >= 0, got ${JSON.stringify(raw)}`,
      );
    }
    expect(() => loadConfigFromEnv({ constructor: '1' }, { constructor: 1 } as never)).toThrow(ConfigError);
    expect(() => loadConfigFromEnv({ COMMITBUS_OUTBOX_ENABLED: 'maybe' })).toThrow(
      'COMMITBUS_OUTBOX_ENABLED must be true/false, yes/no, on/off or 1/0, got "maybe" (option outbox.enabled)',
    );
  });

  it('lets COMMITBUS_LOCK_DURATION_MS and COMMITBUS_DELAYED_POLL_MS still set the options split off them, warned once', () => {
    const logger = recordingLogger();
    const lock = loadConfigFromEnv({ COMMITBUS_LOCK_DURATION_MS: '120000' }, {}, logger);
    expect(lock.handlers.lockDurationMs).toBe(120_000);
    expect(lock.ordering.leaseMs).toBe(120_000);
    const poll = loadConfigFromEnv({ COMMITBUS_DELAYED_POLL_MS: '5000' }, {}, logger);
    expect(poll.publishing.delayedPollMs).toBe(5_000);
    expect(poll.ordering.upkeepMs).toBe(5_000);
    loadConfigFromEnv({ COMMITBUS_LOCK_DURATION_MS: '120000' }, {}, logger);
    expect(logger.at('warn').map((w) => w.message)).toEqual([
      'commitbus environment variable "COMMITBUS_LOCK_DURATION_MS" is deprecated: use COMMITBUS_HANDLERS_LOCK_DURATION_MS (and COMMITBUS_ORDERING_LEASE_MS); it still sets both',
      'commitbus environment variable "COMMITBUS_DELAYED_POLL_MS" is deprecated: use COMMITBUS_PUBLISHING_DELAYED_POLL_MS (and COMMITBUS_ORDERING_UPKEEP_MS); it still sets both',
    ]);
    expect(logger.at('warn')[0]?.fields).toEqual({
      variable: 'COMMITBUS_LOCK_DURATION_MS',
      replacement: 'COMMITBUS_HANDLERS_LOCK_DURATION_MS (and COMMITBUS_ORDERING_LEASE_MS)',
    });
  });

  it('leaves a split-off option to its own variable or an override, without the warning', () => {
    const logger = recordingLogger();
    const env = { COMMITBUS_LOCK_DURATION_MS: '120000', COMMITBUS_DELAYED_POLL_MS: '5000' };
    const own = loadConfigFromEnv(
      { ...env, COMMITBUS_ORDERING_LEASE_MS: '60000', COMMITBUS_ORDERING_UPKEEP_MS: '400' },
      {},
      logger,
    );
    expect(own.handlers.lockDurationMs).toBe(120_000);
    expect(own.ordering).toMatchObject({ leaseMs: 60_000, upkeepMs: 400 });
    const overridden = loadConfigFromEnv(env, { ordering: { leaseMs: 50_000, upkeepMs: 300 } }, logger);
    expect(overridden.ordering).toMatchObject({ leaseMs: 50_000, upkeepMs: 300 });
    expect(overridden.publishing.delayedPollMs).toBe(5_000);
    // The new variables alone do one job each.
    const fresh = loadConfigFromEnv({ COMMITBUS_HANDLERS_LOCK_DURATION_MS: '120000' }, {}, logger);
    expect(fresh.ordering.leaseMs).toBe(30_000);
    expect(logger.at('warn')).toEqual([]);
    // A flat override does both jobs itself, and is what is warned about.
    const flat = loadConfigFromEnv(env, { lockDurationMs: 9_000 }, logger);
    expect(flat.handlers.lockDurationMs).toBe(9_000);
    expect(flat.ordering.leaseMs).toBe(9_000);
    expect(logger.at('warn').map((w) => w.fields)).toEqual([
      { variable: 'COMMITBUS_DELAYED_POLL_MS', replacement: expect.any(String) },
      { option: 'lockDurationMs', replacement: 'handlers.lockDurationMs (and ordering.leaseMs)' },
    ]);
  });

  it('reads booleans as the router does, and refuses two variables of one option that disagree', () => {
    expect(loadConfigFromEnv({ COMMITBUS_OUTBOX: 'off' }).outbox.enabled).toBe(false);
    expect(loadConfigFromEnv({ COMMITBUS_OUTBOX_ENABLED: 'YES' }).outbox.enabled).toBe(true);
    expect(
      loadConfigFromEnv({ COMMITBUS_MAX_EVENTS: '5', COMMITBUS_DRAINS_MAX_EVENTS: '5' }).drains.maxEvents,
    ).toBe(5);
    expect(() =>
      loadConfigFromEnv({ COMMITBUS_REDIS_URL: 'redis://:one@a:6379', REDIS_URL: 'redis://:two@a:6379' }),
    ).toThrow(
      'COMMITBUS_REDIS_URL and REDIS_URL both set redis.url, to different values: set COMMITBUS_REDIS_URL only',
    );
  });
});
