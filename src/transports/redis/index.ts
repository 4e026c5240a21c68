/**
 * `commitbus/redis`: the Redis + BullMQ adapter and its stores, for tools that work on a
 * bus's storage directly.
 * @module commitbus/redis
 */
export { BullmqTransport } from './bullmq.transport.js';
export { UnexpectedRedisReplyError } from './errors/unexpected-redis-reply.error.js';
export { HandlerJobQueues } from './handler-job-queues.js';
export { type QueueNames, queueNames, queueNamesOf } from './queue-names.js';
export { RedisBatchStore } from './redis.batch-store.js';
export { RedisDeadLetterStore } from './redis.dead-letter-store.js';
export { RedisOrderingStore } from './redis.ordering-store.js';
export { RedisRouterCatalog } from './redis.router-catalog.js';
export { RedisSchedulingRuleStore } from './redis.scheduling-rule-store.js';
export { RedisTokenStore } from './redis.token-store.js';
export { redisRouterStores } from './redis-router-stores.js';
export { RedisStreamEventLog } from './redis-stream.event-log.js';
export { type RedisAdapterContext, type RedisTransportOptions, redisTransport } from './redis-transport.js';
export { type RouterKeys, routerKeys } from './router-keys.js';
