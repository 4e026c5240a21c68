import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { EventRegistry } from '../../src/events/event-registry.js';
import { HandlerTable } from '../../src/handlers/handler-table.js';
import {
  type CommitbusOptions,
  ConfigError,
  createEventBus,
  DEFAULT_CONFIG,
  defineHandler,
  Event,
  type EventHandlersConfig,
  EventType,
  HandlerConfigError,
  loadConfigFromEnv,
  UnknownHandlerError,
} from '../../src/index.js';

@EventType('A.B.C')
class Deep extends Event {}

@EventType('A.X')
class Sibling extends Event {}

const registry = new EventRegistry([Deep, Sibling]);
const defaults = { attempts: 3, backoff: { type: 'fixed' as const, delayMs: 10 }, timeoutMs: 5_000 };
const noop = () => {};

/** Builds the table from `config` and returns what it threw. */
function tableError(config: EventHandlersConfig): Error {
  try {
    new HandlerTable(config, registry, defaults);
  } catch (error) {
    expect(error).toBeInstanceOf(HandlerConfigError);
    expect(error).toMatchObject({ code: 'COMMITBUS_HANDLER_CONFIG' });
    return error as Error;
  }
  return expect.unreachable('the table should have been rejected');
}

describe('resolveOptions', () => {
  it('fills in every default', () => {
    expect(resolveOptions()).toEqual(DEFAULT_CONFIG);
    expect(resolveOptions()).toMatchObject({
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'commitbus' },
      publishing: { attempts: 5, backoffMs: 100 },
      handlers: { backoff: { type: 'exponential', delayMs: 1_000, jitter: 0.5 } },
    });
  });

  it('applies overrides and ignores undefined ones', () => {
    const config = resolveOptions({
      redis: { prefix: 'app.1' },
      drains: { maxEvents: 10, batchSize: undefined, scheduleEveryMs: 0 },
    });
    expect(config).toMatchObject({
      redis: { prefix: 'app.1' },
      drains: { maxEvents: 10, batchSize: 100, scheduleEveryMs: 0 },
    });
    // Fields of handlers.backoff left out keep their default.
    expect(resolveOptions({ handlers: { backoff: { type: 'fixed', delayMs: 0 } } }).handlers.backoff).toEqual(
      {
        type: 'fixed',
        delayMs: 0,
        jitter: 0.5,
      },
    );
    expect(
      resolveOptions({ handlers: { backoff: { type: 'fixed', delayMs: 5, jitter: 0 } } }).handlers.backoff,
    ).toEqual({ type: 'fixed', delayMs: 5, jitter: 0 });
    expect(DEFAULT_CONFIG.drains.maxEvents).toBe(1000);
  });

  it.each<[string, CommitbusOptions, string]>([
    [
      'the transport option, gone since adapters are values',
      { transport: 'bullmq' } as unknown as CommitbusOptions,
      "the transport option is gone: give the bus an adapter, createEventBus({ transport: redisTransport({ url }) }) from 'commitbus/redis'",
    ],
    [
      'zero',
      { maxEvents: 0 },
      'drains.maxEvents must be a positive integer, got 0 (given as maxEvents; env COMMITBUS_DRAINS_MAX_EVENTS)',
    ],
    ['fraction', { batchSize: 1.5 }, 'batchSize must be a positive integer, got 1.5'],
    [
      'NaN',
      { publishAttempts: Number.NaN },
      'publishing.attempts must be a positive integer, got NaN (given as publishAttempts',
    ],
    ['no deliveries', { maxDeliveries: 0 }, 'maxDeliveries must be a positive integer, got 0'],
    ['negative backoff', { publishBackoffMs: -1 }, 'publishing.backoffMs must be an integer >= 0, got -1'],
    ['negative schedule', { scheduleEveryMs: -5 }, 'scheduleEveryMs must be an integer >= 0, got -5'],
    ['negative timeout', { handlerTimeoutMs: -1 }, 'handlers.timeoutMs must be an integer >= 0, got -1'],
    ['prefix with a space', { prefix: 'my app' }, 'got prefix "my app", name "events"'],
    ['name with a colon', { name: 'a:b' }, 'got prefix "commitbus", name "a:b"'],
    [
      'dedupe window shorter than the relay',
      { dedupeWindowMs: 5_000 },
      'publishing.dedupeWindowMs (5000) must exceed outbox.graceMs + outbox.relayEveryMs (6000)',
    ],
    [
      'jitter above 1',
      { defaultBackoff: { type: 'fixed', delayMs: 10, jitter: 1.5 } },
      "handlers.backoff must be { type: 'fixed' | 'exponential', delayMs: integer >= 0, jitter?: 0..1 }: jitter must be a number from 0 to 1",
    ],
    [
      'a backoff type BullMQ does not know',
      { defaultBackoff: { type: 'linear' as 'fixed', delayMs: 10 } },
      "type must be 'fixed' or 'exponential'",
    ],
    [
      'a timer option past 2^31 - 1 ms',
      { lockDurationMs: 2 ** 31 },
      'handlers.lockDurationMs must be at most 2147483647 ms',
    ],
    [
      'a redisUrl with an unencoded "/" in its password',
      { redisUrl: 'redis://app:pa/ss@cache:6379' },
      'redis.url "redis://***@cache:6379" is wrong: it is not a URL',
    ],
    [
      'a redisUrl with a stray "%" in its password',
      { redisUrl: 'redis://app:pa%zz@cache:6379' },
      'redis.url "redis://***@cache:6379" is wrong: its user name or password holds a "%"',
    ],
    [
      'a redisUrl whose password reads as a port and a path',
      { redisUrl: 'redis://app:12/ss@cache:6379' },
      'redis.url "redis://***@cache:6379" is wrong: what follows the host must be a database number',
    ],
    [
      'a redisUrl with a port that is not a number',
      { redisUrl: 'redis://cache:port' },
      'redis.url "redis://cache:port" is wrong: it is not a URL',
    ],
  ])('rejects %s with a ConfigError naming the option and value', (_case, overrides, message) => {
    expect(() => resolveOptions(overrides)).toThrow(ConfigError);
    expect(() => resolveOptions(overrides)).toThrow(message);
  });

  it('is applied by createEventBus', () => {
    expect(() => createEventBus({ events: [], config: { asyncConcurrency: 0 } })).toThrow(
      'handlers.concurrency must be a positive integer, got 0 (given as asyncConcurrency',
    );
  });
});

describe('loadConfigFromEnv', () => {
  it('reads numbers and strings, skipping empty variables', () => {
    const config = loadConfigFromEnv({
      COMMITBUS_MAX_EVENTS: '250',
      COMMITBUS_PUBLISH_BACKOFF_MS: '0',
      COMMITBUS_SHUTDOWN_TIMEOUT_MS: '1000',
      COMMITBUS_PREFIX: 'svc',
      COMMITBUS_NAME: 'orders',
      COMMITBUS_BATCH_SIZE: '',
      COMMITBUS_HANDLER_TIMEOUT_MS: '0',
      COMMITBUS_MAX_DELIVERIES: '3',
    });
    expect(config).toMatchObject({
      handlers: { timeoutMs: 0, maxDeliveries: 3 },
      drains: { maxEvents: 250, batchSize: 100 },
      publishing: { backoffMs: 0 },
      shutdownTimeoutMs: 1000,
      redis: { prefix: 'svc' },
      name: 'orders',
    });
  });

  it('reads REDIS_URL into redis.url (the transport is picked by transportFromEnv)', () => {
    expect(loadConfigFromEnv({ REDIS_URL: 'redis://cache:6380/2' })).toMatchObject({
      redis: { url: 'redis://cache:6380/2' },
    });
  });

  it('lets overrides win over the environment', () => {
    const config = loadConfigFromEnv(
      { COMMITBUS_MAX_EVENTS: '5', REDIS_URL: 'redis://x' },
      { drains: { maxEvents: 7 } },
    );
    expect(config).toMatchObject({ drains: { maxEvents: 7 }, redis: { url: 'redis://x' } });
  });

  it('names the variable that is not a number', () => {
    expect(() => loadConfigFromEnv({ COMMITBUS_MAX_EVENTS: 'lots' })).toThrow(ConfigError);
    expect(() => loadConfigFromEnv({ COMMITBUS_MAX_EVENTS: 'lots' })).toThrow(
      'COMMITBUS_MAX_EVENTS must be a whole number >= 0, got "lots" (option drains.maxEvents)',
    );
    expect(() => loadConfigFromEnv({ COMMITBUS_BLOCK_MS: 'Infinity' })).toThrow('COMMITBUS_BLOCK_MS');
  });

  it('validates what it read', () => {
    expect(() => loadConfigFromEnv({ COMMITBUS_BATCH_SIZE: '2.5' })).toThrow(
      'COMMITBUS_BATCH_SIZE must be a whole number >= 0, got "2.5"',
    );
    expect(loadConfigFromEnv({ COMMITBUS_BATCH_SIZE: '   ' }).drains.batchSize).toBe(100);
    expect(() => loadConfigFromEnv({ COMMITBUS_BATCH_SIZE: '0' })).toThrow(
      'batchSize must be a positive integer, got 0',
    );
  });
});

describe('HandlerTable validation', () => {
  const audit = defineHandler('audit', noop);

  it.each(['B', 'A.B.D', 'A.B.C.D', 'a.b.c'])('rejects key %j that no registered class produces', (key) => {
    expect(tableError({ [key]: [audit] }).message).toContain(
      `EVENT_HANDLERS has key ${JSON.stringify(key)} but no registered event class has that key or one below it (known: A.B.C, A.X)`,
    );
  });

  it('rejects two different handlers with the same name', () => {
    const other = defineHandler('audit', noop);
    expect(tableError({ A: [audit], 'A.X': [other] }).message).toContain(
      'two different handlers are named "audit"',
    );
  });

  it.each<[string, unknown, string]>([
    [
      'a bare function',
      function sendMail() {},
      'EVENT_HANDLERS["A.B"][1] is not a handler (got function sendMail)',
    ],
    ['null', null, 'EVENT_HANDLERS["A.B"][1] is not a handler (got null)'],
    ['an options object around a string', { handler: 'audit' }, '[1] is not a handler (got string)'],
    [
      'a one-element tuple',
      [audit],
      'EVENT_HANDLERS["A.B"][1] must be [handler, sync: boolean], got an array of 1',
    ],
    ['a tuple with a string flag', [audit, 'yes'], 'must be [handler, sync: boolean], got an array of 2'],
    [
      'an object with a misspelt option',
      { handler: audit, atempts: 5 },
      'EVENT_HANDLERS["A.B"][1] has no option "atempts": the options are handler, sync, attempts, backoff, timeoutMs, idempotent',
    ],
    [
      'an object whose sync is a string',
      { handler: audit, sync: 'false' },
      'EVENT_HANDLERS["A.B"][1]: sync must be true or false, got string',
    ],
  ])('rejects %s as an entry, naming where it is', (_case, entry, message) => {
    const other = defineHandler('other', noop);
    expect(tableError({ 'A.B': [other, entry] } as unknown as EventHandlersConfig).message).toContain(
      message,
    );
  });

  it('rejects a list that is not an array, and bad attempts, naming the handler', () => {
    expect(tableError({ A: audit } as unknown as EventHandlersConfig).message).toContain(
      'EVENT_HANDLERS["A"] must be an array',
    );
    expect(tableError({ A: [{ handler: audit, attempts: 0 }] }).message).toContain(
      'EVENT_HANDLERS["A"][0] (audit): attempts must be a positive integer',
    );
  });

  it('rejects a negative or fractional timeoutMs on an entry, naming the handler', () => {
    expect(tableError({ A: [{ handler: audit, timeoutMs: -1 }] }).message).toContain(
      'EVENT_HANDLERS["A"][0] (audit): timeoutMs must be an integer >= 0 (0 = no limit), got -1',
    );
    expect(tableError({ A: [{ handler: audit, timeoutMs: 2.5 }] }).message).toContain('got 2.5');
  });

  it('rejects a timeoutMs or backoff delayMs a Node timer cannot hold (past 2^31 - 1 ms)', () => {
    expect(tableError({ A: [{ handler: audit, timeoutMs: 2 ** 31 }] }).message).toContain(
      'EVENT_HANDLERS["A"][0] (audit): timeoutMs must be at most 2147483647',
    );
    expect(
      tableError({ A: [{ handler: audit, backoff: { type: 'fixed', delayMs: 2 ** 31 } }] }).message,
    ).toContain('delayMs must be at most 2147483647');
    expect(
      () => new HandlerTable({ A: [{ handler: audit, timeoutMs: 2 ** 31 - 1 }] }, registry, defaults),
    ).not.toThrow();
  });

  it('rejects a bad backoff on an entry, naming the handler', () => {
    expect(
      tableError({ A: [{ handler: audit, backoff: { type: 'fixed', delayMs: 10, jitter: -0.1 } }] }).message,
    ).toContain('EVENT_HANDLERS["A"][0] (audit): backoff must be');
    expect(
      tableError({ A: [{ handler: audit, backoff: { type: 'fixed', delayMs: 10, jitter: -0.1 } }] }).message,
    ).toContain('jitter must be a number from 0 to 1');
    expect(
      tableError({ A: [{ handler: audit, backoff: { type: 'fixed', delayMs: 1.5 } }] }).message,
    ).toContain('delayMs must be an integer >= 0');
  });

  it('rejects a handler listed under a parent and a child key', () => {
    expect(tableError({ A: [audit], 'A.B': [audit] }).message).toContain(
      'handler "audit" is listed twice for events with key "A.B.C" (once on a parent key)',
    );
    expect(tableError({ 'A.X': [audit, [audit, true]] }).message).toContain(
      'handler "audit" is listed twice',
    );
  });

  it('accepts one handler under sibling keys', () => {
    const table = new HandlerTable({ 'A.B': [audit], 'A.X': [audit] }, registry, defaults);
    expect(table.plan('A.B.C').all.map((h) => h.name)).toEqual(['audit']);
    expect(table.plan('A.X').all.map((h) => h.name)).toEqual(['audit']);
  });

  it('is applied by createEventBus', () => {
    expect(() => createEventBus({ events: [Deep], handlers: { 'A.X': [audit] } })).toThrow(
      HandlerConfigError,
    );
  });
});

describe('HandlerTable plans', () => {
  const a1 = defineHandler('a1', noop);
  const a2 = defineHandler('a2', noop);
  const b1 = defineHandler('b1', noop);
  const c1 = defineHandler('c1', noop);
  // Keys listed child first: the plan order must not depend on it.
  const table = new HandlerTable(
    { 'A.B.C': [c1], A: [a1, [a2, true]], 'A.B': [{ handler: b1, sync: true, attempts: 7 }] },
    registry,
    defaults,
  );

  it('runs the handlers of A, then A.B, then A.B.C, each in list order', () => {
    const plan = table.plan('A.B.C');
    expect(plan.all.map((h) => h.name)).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(plan.sync.map((h) => h.name)).toEqual(['a2', 'b1']);
    expect(plan.async.map((h) => h.name)).toEqual(['a1', 'c1']);
    expect(table.plan('A.X').all.map((h) => h.name)).toEqual(['a1', 'a2']);
  });

  it('resolves entry options over the defaults', () => {
    expect(table.find('A.B.C', 'b1')).toMatchObject({ sync: true, attempts: 7, backoff: defaults.backoff });
    expect(table.find('A.B.C', 'a1')).toMatchObject({ sync: false, attempts: 3, timeoutMs: 5_000 });
    const bus = createEventBus({
      events: [Deep],
      handlers: { A: [a1] },
      config: { handlers: { attempts: 4 } },
    });
    expect(bus.handlers.find('A.B.C', 'a1').attempts).toBe(4);
  });

  it('gives an entry backoff without jitter the default jitter', () => {
    const fixed = { type: 'fixed', delayMs: 200 } as const;
    const bus = createEventBus({
      events: [Deep],
      handlers: {
        A: [{ handler: a1, backoff: fixed }],
        'A.B': [{ handler: b1, backoff: { ...fixed, jitter: 0 } }],
      },
      config: { handlers: { backoff: { type: 'exponential', delayMs: 50, jitter: 0.3 } } },
    });
    expect(bus.handlers.find('A.B.C', 'a1').backoff).toEqual({ type: 'fixed', delayMs: 200, jitter: 0.3 });
    expect(bus.handlers.find('A.B.C', 'b1').backoff).toEqual({ type: 'fixed', delayMs: 200, jitter: 0 });
  });

  it('find() names the handler and key it does not know', () => {
    expect(() => table.find('A.X', 'c1')).toThrow(UnknownHandlerError);
    expect(() => table.find('A.X', 'c1')).toThrow('no handler named "c1" for "A.X"');
  });
});
