/**
 * The Redis adapter on a Redis Cluster (the `redis-cluster` project runs this file, with the local
 * three-master cluster of `.ci/redis-cluster`): every key of a bus, BullMQ's included, lands in one
 * slot; an ioredis `Cluster` can be given instead of nodes; an outage of the whole cluster makes
 * publishing fail fast, naming the nodes and not the password, and publishing works again once the
 * cluster is back. The other Redis suites run on the cluster too (see vitest.config.ts).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Event, type EventHandlersConfig, EventType, TransportUnavailableError } from '../../../src/index.js';
import { queueNamesOf, redisTransport } from '../../../src/transports/redis/index.js';
import { fastConfig } from '../../helpers/buses.js';
import { recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { Recorder } from '../../helpers/recorder.js';
import { CLUSTER_NODES, ON_CLUSTER } from '../../helpers/redis.js';
import { redisTestBed } from '../../helpers/redis-test-bed.js';
import { testRedis } from '../../helpers/transports.js';
import { waitFor } from '../../helpers/wait-for.js';

if (!ON_CLUSTER) {
  throw new Error(
    'this file needs a Redis Cluster: npx vitest run --project redis-cluster test/transports/redis/redis-cluster.test.ts',
  );
}

@EventType('CLUSTER.STEP', { orderBy: (e: ClusterStep) => `flow:${e.flow}` })
class ClusterStep extends Event {
  flow!: number;
  n!: number;
}

const bed = redisTestBed('cluster');
const { redis, buses, prefix } = bed;
const cluster = redis as Cluster;
const config = (name: string) => ({
  config: fastConfig({ prefix, name, delayedPollMs: 20 }),
  transport: testRedis(),
});

/** Every key whose name contains `text`, with the master that holds it. */
async function keysContaining(text: string): Promise<{ key: string; node: string }[]> {
  const found: { key: string; node: string }[] = [];
  for (const node of cluster.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `*${text}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) found.push({ key, node: `${node.options.host}:${node.options.port}` });
    } while (cursor !== '0');
  }
  return found;
}

describe('a bus on a Redis Cluster', () => {
  it("keeps every key it writes, BullMQ's included, under its hash tag: one slot on one master", async () => {
    const rec = new Recorder();
    const handlers: EventHandlersConfig = {
      RECORD: [[rec.handler('slot.audit'), true]],
      'RECORD.CREATE': [
        rec.handler('slot.mail'),
        rec.handler('slot.parked'),
        {
          handler: rec.handler('slot.broken', () => {
            throw new Error('always');
          }),
          attempts: 2,
        },
      ],
      'CLUSTER.STEP': [[rec.handler('slot.step'), true], rec.handler('slot.step-async')],
    };
    const events = [...TEST_EVENTS, ClusterStep];
    const admin = buses.create({ events, handlers, ...config('slots') });
    await admin.rules.pause({ handler: 'slot.parked' });
    const { bus } = await buses.start({ events, handlers, ...config('slots') });

    const created = Array.from({ length: 20 }, (_, i) => recordCreated(`r${i}`));
    const later = recordCreated('later');
    const steps = Array.from({ length: 30 }, (_, i) => ClusterStep.create({ flow: i % 3, n: i }));
    await bus.publish(created);
    await bus.publish(steps);
    await bus.publish(later, { delay: 50 });
    await bus.whenIdle(20_000);

    // The work ran: sync, async, retries given up as dead letters, parked work, ordered lanes in order.
    const ids = [...created, later].map((e) => e.id);
    expect(rec.notRunOnce('slot.audit', ids)).toEqual([]);
    expect(rec.notRunOnce('slot.mail', ids)).toEqual([]);
    expect(rec.count('slot.broken')).toBe(2 * ids.length);
    expect(await bus.deadLetters.list()).toHaveLength(ids.length);
    expect(await admin.rules.parkedCount('slot.parked')).toBe(ids.length);
    for (const flow of [0, 1, 2]) {
      const inOrder = steps.filter((s) => s.flow === flow).map((s) => s.id);
      const ran = (handler: string) =>
        rec.runs.filter((r) => r.handler === handler && inOrder.includes(r.eventId)).map((r) => r.eventId);
      expect(ran('slot.step')).toEqual(inOrder);
      expect(ran('slot.step-async')).toEqual(inOrder);
    }

    const tag = queueNamesOf(bus.config).tag;
    const keys = await keysContaining(prefix);
    const names = keys.map((k) => k.key);
    expect(names.filter((key) => !key.startsWith(`${tag}:`))).toEqual([]);
    // The kinds of keys a bus writes are all there (its own and BullMQ's queues).
    for (const part of [
      ':stream',
      ':seen:',
      ':dead-letters',
      ':parked:',
      ':ord:',
      ':slots-async:',
      ':slots-drain:',
    ])
      expect(
        names.some((key) => key.includes(part)),
        part,
      ).toBe(true);
    expect(new Set(keys.map((k) => k.node)).size).toBe(1);
    const slots = new Set(await Promise.all(names.map((key) => cluster.cluster('KEYSLOT', key))));
    expect([...slots]).toEqual([await cluster.cluster('KEYSLOT', tag)]);
  });

  it('runs on an ioredis Cluster given as redisCluster, copying it and leaving it open', async () => {
    const given = new Cluster([...(CLUSTER_NODES ?? [])], { redisOptions: { connectionName: 'given' } });
    try {
      const rec = new Recorder();
      const handlers: EventHandlersConfig = {
        'RECORD.CREATE': [[rec.handler('given.sync'), true], rec.handler('given.async')],
      };
      const options = { prefix, name: 'given', redisCluster: given };
      // The adapter takes its Redis from the options: redisCluster here.
      const { bus } = await buses.start({
        events: TEST_EVENTS,
        handlers,
        config: fastConfig(options),
        transport: redisTransport(),
      });
      const events = Array.from({ length: 10 }, (_, i) => recordCreated(`g${i}`));
      await bus.publish(events);
      await bus.whenIdle(10_000);
      expect(
        rec.notRunOnce(
          'given.sync',
          events.map((e) => e.id),
        ),
      ).toEqual([]);
      expect(
        rec.notRunOnce(
          'given.async',
          events.map((e) => e.id),
        ),
      ).toEqual([]);
      await bus.close();

      // The bus used connections of its own: the one given is still open and untouched.
      expect(given.status).toBe('ready');
      expect(await given.xlen(queueNamesOf(bus.config).stream)).toBe(0);
    } finally {
      given.disconnect();
    }
  });
});

describe('an outage of the whole cluster', () => {
  // A cluster of its own, to take down: ports apart from the shared one's, and a password.
  const PORTS = '7100 7101 7102';
  const PASSWORD = 's3cret-pw';
  const SCRIPT = fileURLToPath(new URL('../../../.ci/redis-cluster', import.meta.url));
  const env = {
    ...process.env,
    REDIS_CLUSTER_PORTS: PORTS,
    REDIS_CLUSTER_DIR: `/tmp/commitbus-outage-${prefix}`,
    REDIS_CLUSTER_PASSWORD: PASSWORD,
  };
  const startCluster = () => execFileSync(SCRIPT, { env, encoding: 'utf8' }).trim().split(',');
  const stopCluster = () => execFileSync(SCRIPT, ['stop'], { env, stdio: 'ignore' });
  afterAll(stopCluster);

  it('makes publishing fail fast, naming the nodes and not the password; publishing works again once it is back', async () => {
    const nodes = startCluster();
    // One node given: the others are discovered, and the password reaches them too.
    const options = {
      prefix,
      name: 'outage',
      redisCluster: [`redis://:${PASSWORD}@${nodes[0]}`],
    };
    const rec = new Recorder();
    const handlers: EventHandlersConfig = { 'RECORD.CREATE': [[rec.handler('outage.sync'), true]] };
    const publisher = buses.create({
      events: TEST_EVENTS,
      config: fastConfig({ ...options, publishAttempts: 1 }),
      transport: redisTransport(),
    });
    const before = recordCreated('before');
    await publisher.publish(before);

    stopCluster();
    const startedAt = Date.now();
    const error = await publisher.publish(recordCreated('during')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransportUnavailableError);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    const message = (error as Error).message;
    expect(message).toContain(`Redis Cluster at ${nodes[0]}`);
    expect(message).toContain('REDIS_CLUSTER_NODES');
    expect(message).not.toContain(PASSWORD);

    startCluster();
    const after = recordCreated('after');
    await waitFor(
      'publishing to work again',
      () =>
        publisher.publish(after).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    // The cluster came back empty (nothing persisted): a worker handles what was published since. Its
    // scheduler starts a drain even if the publisher's kick was lost while the cluster was coming back.
    await buses.start({
      events: TEST_EVENTS,
      handlers,
      config: fastConfig({ ...options, scheduleEveryMs: 200 }),
      transport: redisTransport(),
    });
    await waitFor('the event published after the outage to be handled', () => rec.count('outage.sync') === 1);
    expect(rec.runs.map((r) => r.eventId)).toEqual([after.id]);
  });
});
