/**
 * What the scheduling rules suites (`rules-*.test.ts`) share: a Redis test bed
 * under the file's own prefix, the config of a test bus, a worker bus paired
 * with a second instance on the same rules, and what a bullmq bus left in Redis.
 */
import {
  type CommitbusOptions,
  type Event,
  EventBus,
  type EventHandlersConfig,
  silentLogger,
  type TransportAdapter,
} from '../../src/index.js';
import type { ParkedWork } from '../../src/scheduling/parked-work.js';
import { queueNamesOf } from '../../src/transports/redis/index.js';
import { fastConfig } from '../helpers/buses.js';
import { TEST_EVENTS } from '../helpers/events.js';
import { scanKeys } from '../helpers/redis.js';
import { type RedisTestBed, redisTestBed } from '../helpers/redis-test-bed.js';
import { type TransportName, testTransport } from '../helpers/transports.js';

/** A worker bus, and a second bus instance on the same rules: what another process sees and sets. */
export interface Pair {
  readonly bus: EventBus;
  readonly admin: EventBus;
}

/** A rules suite's bed: the Redis test bed, and the helpers bound to its prefix and connection. */
export interface RulesBed extends RedisTestBed {
  /**
   * The config and transport of a test bus named `name`. One handler job at a time: released work
   * then runs strictly in the order it was parked (with more, runs start in that order but may overlap).
   */
  config(
    transport: TransportName,
    name: string,
    overrides?: CommitbusOptions,
  ): { config: CommitbusOptions; transport: TransportAdapter };
  /** Starts a worker bus on `handlers` and creates its second instance (see {@link Pair}). */
  startPair(
    transport: TransportName,
    name: string,
    handlers: EventHandlersConfig,
    overrides?: CommitbusOptions,
  ): Promise<Pair>;
  /** The scheduling keys a bullmq bus left in Redis (rules, parked work, counters), sorted. */
  schedulingKeys(bus: EventBus): Promise<string[]>;
  /** The work parked for `handler` on a bullmq bus, oldest first, as stored. */
  parkedInRedis(bus: EventBus, handler: string): Promise<ParkedWork[]>;
}

/**
 * Sets up a rules test file under its own key prefix (`redisTestBed(name)`: buses closed after each
 * test, keys deleted after the file). Call it once, at the top of the file.
 */
export function rulesBed(name: string): RulesBed {
  const bed = redisTestBed(name);
  const { prefix, redis, buses } = bed;

  const config: RulesBed['config'] = (transport, busName, overrides = {}) => ({
    config: fastConfig({ prefix, name: busName, asyncConcurrency: 1, ...overrides }),
    transport: testTransport(transport),
  });

  const startPair: RulesBed['startPair'] = async (transport, busName, handlers, overrides = {}) => {
    const options = { events: TEST_EVENTS, handlers, ...config(transport, busName, overrides) };
    const { bus } = await buses.start(options);
    // On SQLite in memory (a database per transport object), "another process" is a second bus on
    // the same transport; on bullmq, a second bus on the same prefix and name, with its own connections.
    const admin =
      transport === 'sqlite'
        ? new EventBus({ ...options, logger: silentLogger }, bus.transport)
        : buses.create(options);
    return { bus, admin };
  };

  const schedulingKeys: RulesBed['schedulingKeys'] = async (bus) => {
    const names = queueNamesOf(bus.config);
    const found = (await redis.exists(names.rules)) ? [names.rules] : [];
    for (const key of [names.parkedHandlers, names.dropped]) if (await redis.exists(key)) found.push(key);
    found.push(...(await scanKeys(redis, `${names.parked}:*`)));
    return found.sort();
  };

  const parkedInRedis: RulesBed['parkedInRedis'] = async (bus, handler) => {
    const items = await redis.lrange(`${queueNamesOf(bus.config).parked}:${handler}`, 0, -1);
    return items.map((item) => JSON.parse(item) as ParkedWork);
  };

  return { ...bed, config, startPair, schedulingKeys, parkedInRedis };
}

/** Work for `handler` as a worker that saw a pause would park it: one async run of `event`, under `jobId`. */
export function asyncRunParked(bus: EventBus, event: Event, handler: string, jobId: string): ParkedWork {
  return {
    job: {
      kind: 'async',
      jobId,
      payload: bus.serializer.serialize(event).payload,
      handler,
      attempts: 1,
      backoff: { type: 'fixed', delayMs: 0 },
      delayMs: 0,
      firstAttempt: 1,
    },
    handlingKey: event.handlingKey,
    parkedAt: Date.now(),
  };
}
