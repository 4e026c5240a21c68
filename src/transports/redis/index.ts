export { BullmqTransport } from './bullmq.transport.js';
export { HandlerJobQueues } from './handler-job-queues.js';
export { type QueueNames, queueNames } from './queue-names.js';
export { RedisDeadLetterStore } from './redis.dead-letter-store.js';
export { RedisOrderingStore } from './redis.ordering-store.js';
export { RedisSchedulingRuleStore } from './redis.scheduling-rule-store.js';
export { RedisStreamEventLog } from './redis-stream.event-log.js';
