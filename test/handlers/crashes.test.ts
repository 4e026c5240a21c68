/**
 * A handler that kills its worker process is handed out only `maxDeliveries`
 * times: on the next delivery it is not run but kept as a dead letter with
 * reason `crashed`, and the worker that got it lives on and handles the rest.
 * Real worker processes that really exit; BullMQ counts a job's stalls.
 */
import { describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import { childWorkers, spawnWorker } from '../helpers/child-worker.js';
import { recordCreated, TEST_EVENTS } from '../helpers/events.js';
import { failedHandlerJobs, isSettled, REDIS_URL } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { testRedis } from '../helpers/transports.js';
import { waitFor } from '../helpers/wait-for.js';

const { prefix: PREFIX, redis, buses } = redisTestBed('crashes');
const children = childWorkers();

describe('a handler that kills its process', () => {
  it('crashes its worker maxDeliveries times, then is dead-lettered as crashed without running; the other events are handled once', async () => {
    const name = 'poison';
    const countsKey = `${PREFIX}:${name}:counts`;
    const env = {
      PREFIX,
      BUS_NAME: name,
      COUNTS_KEY: countsKey,
      PIDS_KEY: `${PREFIX}:${name}:pids`,
      REDIS_URL,
      ASYNC: '1',
      // One job at a time, so the crashes stall the poison job and no other.
      ASYNC_CONCURRENCY: '1',
      LOCK_DURATION_MS: '500',
      MAX_DELIVERIES: '2',
      CRASH_RECID: 'poison',
    };
    const config = fastConfig({ prefix: PREFIX, name });
    const publisher = buses.create({ events: TEST_EVENTS, config, transport: testRedis() });
    const poison = recordCreated('poison');
    const healthy = Array.from({ length: 5 }, (_, i) => recordCreated(`ok-${i}`));
    await publisher.publish([poison, ...healthy]);

    for (let crashes = 1; crashes <= 2; crashes++) {
      const worker = spawnWorker(env);
      children.push(worker);
      const { code } = await worker.exited;
      expect(code, worker.stderr()).toBe(1);
      expect(Number(await redis.hget(countsKey, poison.id))).toBe(crashes);
    }

    const survivor = spawnWorker(env);
    children.push(survivor);
    await survivor.ready;
    await waitFor(
      'the poison event to be dead-lettered',
      async () => (await publisher.deadLetters.list()).length === 1,
      {
        timeoutMs: 15_000,
      },
    );
    await waitFor('every event to be handled or given up', () => isSettled(redis, publisher.config), {
      timeoutMs: 15_000,
    });

    const [letter] = (await publisher.deadLetters.list()) as [DeadLetter];
    expect(letter).toMatchObject({
      id: `${poison.id}.process.record`,
      kind: 'handler',
      handler: 'process.record',
      reason: 'crashed',
    });
    expect(letter.attempts.map((a) => [a.attempt, a.name, a.code])).toEqual([
      [1, 'HandlerCrashedError', 'COMMITBUS_HANDLER_CRASHED'],
    ]);
    expect(letter.error).toContain('delivered 3 times (handlers.maxDeliveries 2)');
    const counts = await redis.hgetall(countsKey);
    expect(counts).toEqual(Object.fromEntries([[poison.id, '2'], ...healthy.map((e) => [e.id, '1'])]));
    expect(await failedHandlerJobs(redis, publisher.config)).toBe(0);
    expect(survivor.process.exitCode).toBeNull();
    survivor.process.kill('SIGTERM');
    expect((await survivor.exited).code).toBe(0);
  });
});
