import type { JobType, Queue } from 'bullmq';
import type { EventBus } from '../bus/event-bus.js';

/** The BullMQ queues the bus's transport runs on (drain, async, retry); none when its work is not on BullMQ. */
export function bullmqQueuesOf(bus: EventBus): readonly Queue[] {
  return bus.transport.bullmqQueues ?? [];
}

/**
 * Job counts by state of each of `queues`, the bus's, and whether it is
 * paused (by bull-board or a script: commitbus never pauses one). Redis is pinged first
 * through the bus's own connection, so an outage fails soon with a
 * `TransportUnavailableError` (BullMQ waits for Redis without end).
 */
export async function bullmqQueueCounts(
  bus: EventBus,
  queues: readonly Queue[],
  states: readonly JobType[],
): Promise<{ name: string; counts: Record<string, number>; paused: boolean }[]> {
  if (queues.length === 0) return [];
  await bus.transport.reachable?.('read the BullMQ queues');
  return Promise.all(
    queues.map(async (queue) => {
      const [counts, paused] = await Promise.all([queue.getJobCounts(...states), queue.isPaused()]);
      return { name: queue.name, counts, paused };
    }),
  );
}
