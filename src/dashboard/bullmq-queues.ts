import type { Queue } from 'bullmq';
import type { EventBus } from '../bus/event-bus.js';
import { BullmqTransport } from '../transports/redis/bullmq.transport.js';

/** The bus's BullMQ queues (drain, async, retry); none on the memory transport. */
export function bullmqQueuesOf(bus: EventBus): readonly Queue[] {
  return bus.transport instanceof BullmqTransport ? bus.transport.bullmqQueues : [];
}
