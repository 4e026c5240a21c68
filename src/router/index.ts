export type { Batch } from './batch.js';
export type { BatchStore, DroppedBatches, TakeOptions } from './batch-store.js';
export type { StoredToken } from './client-token.js';
export {
  DEFAULT_DELIVERY_BACKOFF,
  type DeliveryBackoff,
  deliveryRetryDelay,
} from './delivery/delivery-backoff.js';
export {
  DEFAULT_DELIVERY_SETTINGS,
  type DeliverySettings,
  deliverySettings,
} from './delivery/delivery-settings.js';
export { DeliveryWorker, type DeliveryWorkerDeps } from './delivery/delivery-worker.js';
export {
  batchDeadLetter,
  type WebhookLetterPayload,
  webhookRedriver,
} from './delivery/webhook-dead-letter.js';
export { WebhookSender, type WebhookSenderOptions } from './delivery/webhook-sender.js';
export { signWebhook, type WebhookSignatureHeaders } from './delivery/webhook-signature.js';
export type { DeliveryOutcome, WebhookTarget } from './delivery/webhook-target.js';
export {
  ATTEMPT_LOG_SIZE,
  type DeliveryAttempt,
  type DeliveryAttemptLog,
  successRate,
} from './delivery-attempt-log.js';
export { RouterRedisRequiredError, type RouterRedisSource } from './errors/router-redis-required.error.js';
export { RouterUsageError } from './errors/router-usage.error.js';
export { UnknownSubscriberError } from './errors/unknown-subscriber.error.js';
export {
  type AnsweredRequest,
  API_DEFAULTS,
  type ApiSettings,
  createRouterApi,
  type ListenOptions,
  type RouterApi,
  type RouterApiDeps,
  type RouterApiTuning,
  type TlsMaterial,
} from './http/index.js';
export { IngestCoalescer } from './ingest-coalescer.js';
export {
  loadRouterConfigFromEnv,
  type RouterConfigFromEnvOptions,
} from './load-router-config-from-env.js';
export { loadRouterOptionsFromEnv, parseRoles, ROUTER_ENV_VARS } from './load-router-options-from-env.js';
export { ROUTER_EVENT_TYPES, type RouterEvent, type RouterEventType } from './router-event.js';
export { RouterMetrics } from './router-metrics.js';
export { MAX_URL_BYTES } from './router-names.js';
export { ROUTER_ROLES, type RouterOptions, type RouterRole } from './router-options.js';
export type { RouterStores } from './router-stores.js';
export type { SubscriberQueueStats, SubscriberRecord } from './subscriber.js';
export {
  SIGNING_SECRETS_KEPT,
  type SigningSecretsToRemove,
  SUBSCRIBER_DEFAULTS,
  type SubscriberSettings,
  type SubscriberStore,
} from './subscriber-store.js';
export type { TokenStore } from './token-store.js';
export type { IngestResult, TopicRecord } from './topic.js';
export { type TopicMessage, type TopicRouteOptions, topicRoute } from './topic-route.js';
export type { TopicStore } from './topic-store.js';
export { type AutodropResult, RouterUpkeep, type RouterUpkeepDeps } from './upkeep/router-upkeep.js';
export { DEFAULT_UPKEEP_SETTINGS, type UpkeepSettings, upkeepSettings } from './upkeep/upkeep-settings.js';
