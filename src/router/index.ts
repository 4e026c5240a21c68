export type { Batch } from './batch.js';
export type { BatchStore, DroppedBatches, TakeOptions } from './batch-store.js';
export type { StoredToken } from './client-token.js';
export { ROUTER_EVENT_TYPES, type RouterEvent, type RouterEventType } from './router-event.js';
export type { SubscriberQueueStats, SubscriberRecord } from './subscriber.js';
export type { SubscriberStore } from './subscriber-store.js';
export type { TokenStore } from './token-store.js';
export type { IngestResult, TopicRecord } from './topic.js';
export type { TopicStore } from './topic-store.js';
