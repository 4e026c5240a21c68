import type { JobType, Queue } from 'bullmq';
import type { EventBus } from '../bus/event-bus.js';
import { BullmqTransport } from '../transports/redis/bullmq.transport.js';

/** The bus's BullMQ queues (drain, async, retry); none on the memory transport. */
export function bullmqQueuesOf(bus: EventBus): readonly Queue[] {
  return bus.transport instanceof BullmqTransport ? bus.transport.bullmqQueues : [];
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
  if (bus.transport instanceof BullmqTransport) await bus.transport.reachable('read the BullMQ queues');
  return Promise.all(
    queues.map(async (queue) => ({ name: queue.name, counts: await queue.getJobCounts(...states) })),
  );
}
