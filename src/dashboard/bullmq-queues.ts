import type { JobType, Queue } from 'bullmq';
import type { EventBus } from '../bus/event-bus.js';

/** The BullMQ queues the bus's transport runs on (drain, async, retry); none when its work is not on BullMQ. */
export function bullmqQueuesOf(bus: EventBus): readonly Queue[] {
  return bus.transport.bullmqQueues ?? [];
}

/**
 * Job counts by state of each of `queues`, the bus's. Redis is pinged first
 * through the bus's own connection, so an outage fails soon with a
 * `TransportUnavailableError` (BullMQ waits for Redis without end).
 */
export async function bullmqQueueCounts(
  bus: EventBus,
  queues: readonly Queue[],
  states: readonly JobType[],
): Promise<{ name: string; counts: Record<string, number> }[]> {
  if (queues.length === 0) return [];
  await bus.transport.reachable?.('read the BullMQ queues');
  return Promise.all(
    queues.map(async (queue) => ({ name: queue.name, counts: await queue.getJobCounts(...states) })),
  );
}
