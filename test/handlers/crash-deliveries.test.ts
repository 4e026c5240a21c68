/**
 * Deliveries are counted on the drain and ordered paths too, so an event whose
 * sync handler kills its worker process stops after `maxDeliveries` crashes:
 * in a drain it becomes a `crashed` dead letter, in an ordered lane it halts
 * its key with reason `crashed`; the healthy events around it are handled,
 * once where nothing ran them before the crash. Real worker processes
 * (`test/fixtures/worker-process.ts`) that really exit, restarted one after
 * the other.
 */
import { describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../src/index.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { fastConfig } from '../helpers/buses.js';
import { type ChildWorker, childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { FlowStep, flowStep, recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { redisEnv, streamLength } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('crash-deliveries');
const children = childWorkers();
const MAX_DELIVERIES = 3;

/** The worker fixture's settings for bus `name`; its count keys share one hash tag (one slot on a cluster). */
function workerEnv(name: string, extra: Record<string, string>) {
  const countsKey = `${PREFIX}:{${name}}:counts`;
  const env = {
    PREFIX,
    BUS_NAME: name,
    COUNTS_KEY: countsKey,
    PIDS_KEY: `${PREFIX}:{${name}}:pids`,
    ...redisEnv(),
    // Long enough that a loaded machine never takes work from a live worker (which would count a
    // delivery no crash caused), short enough to keep the takeovers after each crash quick.
    LOCK_DURATION_MS: '1000',
    CLAIM_STALE_AFTER_MS: '1000',
    MAX_DELIVERIES: String(MAX_DELIVERIES),
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...extra,
  };
  return { env, countsKey };
}

/** Starts a worker that is expected to die by the poison event, and waits for that. */
async function crashOnce(env: Record<string, string>): Promise<void> {
  const worker = spawnWorker(env);
  children.push(worker);
  const { code } = await worker.exited;
  expect(code, worker.stderr()).toBe(1);
}

async function stop(worker: ChildWorker): Promise<void> {
  expect(worker.process.exitCode, worker.stderr()).toBeNull();
  worker.process.kill('SIGTERM');
  expect((await worker.exited).code).toBe(0);
}

/** Entries of the bus's stream still pending in its consumer group. */
async function pendingEntries(name: string): Promise<number> {
  const names = queueNames({ prefix: PREFIX, name });
  const [count] = (await redis.xpending(names.stream, names.group)) as [number];
  return count;
}

describe('a sync handler that kills its drain', () => {
  it('is dead-lettered as crashed after maxDeliveries restarts; the other 19 events of its batch run their sync and async handlers once, and nothing is left', async () => {
    const name = 'drain-first';
    const { env, countsKey } = workerEnv(name, { ALSO_ASYNC: '1', CRASH_RECID: 'killer' });
    const config = fastConfig({ prefix: PREFIX, name });
    const publisher = buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    // One publish: the first drain reads all 20 in one batch, the killer first, and dies on it.
    const killer = recordCreated('killer');
    const healthy = Array.from({ length: 19 }, (_, i) => recordCreated(`ok-${i}`));
    await publisher.publish([killer, ...healthy]);

    // Each restart takes the dead drain's entries over one at a time: the killer is the oldest, so
    // only it gains deliveries (a claim of the whole batch would count them for all 20).
    for (let crashes = 1; crashes <= MAX_DELIVERIES; crashes++) {
      await crashOnce(env);
      expect(Number(await redis.hget(countsKey, killer.id))).toBe(crashes);
    }

    const survivor = spawnWorker(env);
    children.push(survivor);
    await survivor.ready;
    await publisher.whenIdle(20_000);

    const letters = await publisher.deadLetters.list();
    expect(letters.map((l) => [l.id, l.kind, l.handler, l.reason])).toEqual([
      [`${killer.id}.process.record`, 'handler', 'process.record', 'crashed'],
    ]);
    expect((letters[0] as DeadLetter).error).toContain(
      `delivered ${MAX_DELIVERIES + 1} times (handlers.maxDeliveries ${MAX_DELIVERIES})`,
    );
    expect(await redis.hgetall(countsKey)).toEqual(
      Object.fromEntries([[killer.id, String(MAX_DELIVERIES)], ...healthy.map((e) => [e.id, '1'])]),
    );
    // Async handlers fan out even for the crashed event: each is work of its own.
    expect(await redis.hgetall(`${countsKey}:async`)).toEqual(
      Object.fromEntries([killer, ...healthy].map((e) => [e.id, '1'])),
    );
    expect(await streamLength(redis, publisher.config)).toBe(0);
    expect(await pendingEntries(name)).toBe(0);
    await stop(survivor);
  });

  it('a killer mid-batch: the events before it, already run when the first drain died, run once more (at least once); the killer stops after maxDeliveries; the events after it run once', async () => {
    const name = 'drain-middle';
    const { env, countsKey } = workerEnv(name, { CRASH_RECID: 'killer' });
    const config = fastConfig({ prefix: PREFIX, name });
    const publisher = buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    const before = Array.from({ length: 7 }, (_, i) => recordCreated(`before-${i}`));
    const killer = recordCreated('killer');
    const after = Array.from({ length: 12 }, (_, i) => recordCreated(`after-${i}`));
    await publisher.publish([...before, killer, ...after]);

    for (let crashes = 1; crashes <= MAX_DELIVERIES; crashes++) {
      await crashOnce(env);
      expect(Number(await redis.hget(countsKey, killer.id))).toBe(crashes);
    }
    const survivor = spawnWorker(env);
    children.push(survivor);
    await survivor.ready;
    await publisher.whenIdle(20_000);

    const letters = await publisher.deadLetters.list();
    expect(letters.map((l) => [l.handler, l.reason, l.eventId])).toEqual([
      ['process.record', 'crashed', killer.id],
    ]);
    // The second drain ran the 7 again (taken over one by one, each acknowledged at once), then
    // died on the killer; later drains found only the killer before the rest.
    expect(await redis.hgetall(countsKey)).toEqual(
      Object.fromEntries([
        ...before.map((e) => [e.id, '2']),
        [killer.id, String(MAX_DELIVERIES)],
        ...after.map((e) => [e.id, '1']),
      ]),
    );
    expect(await streamLength(redis, publisher.config)).toBe(0);
    expect(await pendingEntries(name)).toBe(0);
    await stop(survivor);
  });
});

describe('an ordered event whose handler kills its worker', () => {
  it('halts its key as crashed after maxDeliveries lane takeovers; other keys keep flowing; a redrive after the fix runs it and the rest of its key', async () => {
    const name = 'lanes';
    const { env, countsKey } = workerEnv(name, {
      ORDERED: '1',
      // One lane at a time: the healthy key b is done before key a's killer runs.
      ORDERED_CONCURRENCY: '1',
      CRASH_RECID: 'a2',
    });
    const config = fastConfig({ prefix: PREFIX, name });
    const publisher = buses.create({ events: [...TEST_EVENTS, FlowStep], config, transport: testRedis() });
    const [b1, b2, a1, a2, a3] = [
      flowStep('b', 'b1'),
      flowStep('b', 'b2'),
      flowStep('a', 'a1'),
      flowStep('a', 'a2'),
      flowStep('a', 'a3'),
    ];
    await publisher.publish([b1, b2, a1, a2, a3]);

    for (let crashes = 1; crashes <= MAX_DELIVERIES; crashes++) {
      await crashOnce(env);
      expect(Number(await redis.hget(countsKey, a2.id))).toBe(crashes);
    }
    const survivor = spawnWorker(env);
    children.push(survivor);
    await survivor.ready;
    await waitFor('key flow:a to halt', async () => (await publisher.ordering.halted()).length === 1, {
      timeoutMs: 15_000,
    });
    const [halted] = await publisher.ordering.halted();
    expect(halted).toMatchObject({
      key: 'flow:a',
      lane: 'sync',
      handler: 'process.step',
      eventId: a2.id,
      reason: 'crashed',
      waiting: 2,
    });
    expect(halted?.error).toContain(
      `delivered ${MAX_DELIVERIES + 1} times (handlers.maxDeliveries ${MAX_DELIVERIES})`,
    );

    // Other keys keep flowing while flow:a is halted.
    const [c1, c2, b3] = [flowStep('c', 'c1'), flowStep('c', 'c2'), flowStep('b', 'b3')];
    await publisher.publish([c1, c2, b3]);
    await publisher.whenIdle(20_000);
    expect(await redis.lrange(`${countsKey}:flow:c`, 0, -1)).toEqual(['c1', 'c2']);
    expect(await redis.lrange(`${countsKey}:flow:b`, 0, -1)).toEqual(['b1', 'b2', 'b3']);
    expect(await redis.lrange(`${countsKey}:flow:a`, 0, -1)).toEqual([
      'a1',
      ...Array(MAX_DELIVERIES).fill('a2'),
    ]);

    // The fix is deployed (a worker without the crash); the operator re-drives the key.
    await stop(survivor);
    const fixed = spawnWorker({ ...env, CRASH_RECID: '' });
    children.push(fixed);
    await fixed.ready;
    expect(await publisher.ordering.redrive('flow:a')).toBe(1);
    await waitFor(
      'key flow:a to finish',
      async () => (await redis.llen(`${countsKey}:flow:a`)) === MAX_DELIVERIES + 3,
      {
        timeoutMs: 15_000,
      },
    );
    await publisher.whenIdle(20_000);
    expect(await redis.lrange(`${countsKey}:flow:a`, 0, -1)).toEqual([
      'a1',
      ...Array(MAX_DELIVERIES + 1).fill('a2'),
      'a3',
    ]);
    expect(await publisher.ordering.halted()).toEqual([]);
    expect(await publisher.deadLetters.list()).toEqual([]);
    const counts = await redis.hgetall(countsKey);
    expect(counts).toEqual(
      Object.fromEntries([
        ...[b1, b2, b3, c1, c2, a1, a3].map((e) => [e.id, '1']),
        [a2.id, String(MAX_DELIVERIES + 1)],
      ]),
    );
    await stop(fixed);
  });
});
