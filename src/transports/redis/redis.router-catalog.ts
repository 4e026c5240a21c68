import type { SubscriberRecord } from '../../router/subscriber.js';
import {
  keptSecrets,
  SIGNING_SECRETS_KEPT,
  type SigningSecretsToRemove,
  SUBSCRIBER_DEFAULTS,
  type SubscriberSettings,
  type SubscriberStore,
} from '../../router/subscriber-store.js';
import type { TopicRecord } from '../../router/topic.js';
import type { TopicStore } from '../../router/topic-store.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { type RouterKeys, routerKeys } from './router-keys.js';
import { routerScripts } from './router-scripts.js';

/**
 * {@link TopicStore} and {@link SubscriberStore} on Redis, under the bus's
 * hash tag (see {@link RouterKeys}): topics in two hashes, each subscriber's
 * settings in a hash with its topics in a set, and each topic's subscribers
 * in a set that `router-ingest.lua` fans out to. Saving a subscriber creates
 * its topics when missing; its paused state and signing secrets are fields
 * of their own, changed only by their own scripts. Topics and subscribers are
 * listed by name, a subscriber's topics sorted.
 */
export class RedisRouterCatalog implements TopicStore, SubscriberStore {
  private readonly keys: RouterKeys;

  constructor(
    private readonly client: RedisClient,
    names: Pick<QueueNames, 'tag'>,
  ) {
    this.keys = routerKeys(names.tag);
  }

  async listTopics(): Promise<TopicRecord[]> {
    const [publishers, counts] = await Promise.all([
      this.client.hgetall(this.keys.topics),
      this.client.hgetall(this.keys.topicEvents),
    ]);
    return Object.keys(publishers)
      .sort()
      .map((name) => ({
        name,
        publisher: publishers[name] === '' ? null : (publishers[name] ?? null),
        events: Number(counts[name] ?? 0),
      }));
  }

  async ensureTopics(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    const multi = this.client.multi();
    for (const name of names) multi.hsetnx(this.keys.topics, name, '');
    await multi.exec();
  }

  async removeTopic(name: string): Promise<boolean> {
    const k = this.keys;
    const removed = await routerScripts(this.client).routerRemoveTopic(
      k.topics,
      k.topicEvents,
      k.topicSubscribers(name),
      k.prefix,
      name,
    );
    return removed === 1;
  }

  async saveSubscriber(subscriber: SubscriberSettings): Promise<void> {
    const { name, callback, uuid, maxEvents, timeoutMs, topics, ordered } = subscriber;
    const k = this.keys;
    await routerScripts(this.client).routerSaveSubscriber(
      k.subscribers,
      k.topics,
      k.subscriber(name),
      k.subscriberTopics(name),
      k.due,
      k.prefix,
      name,
      JSON.stringify({ name, callback, uuid } satisfies StoredSettings),
      maxEvents ?? '',
      timeoutMs ?? '',
      ordered === undefined ? '' : ordered ? 1 : 0,
      SUBSCRIBER_DEFAULTS.maxEvents,
      SUBSCRIBER_DEFAULTS.timeoutMs,
      ...new Set(topics),
    );
  }

  async getSubscriber(name: string): Promise<SubscriberRecord | undefined> {
    const [fields, topics] = await Promise.all([
      this.client.hmget(
        this.keys.subscriber(name),
        'record',
        'paused',
        'ordered',
        'secrets',
        'max',
        'timeout',
      ),
      this.client.smembers(this.keys.subscriberTopics(name)),
    ]);
    const [json, paused, ordered, secrets, max, timeout] = fields;
    if (json === null || json === undefined) return undefined;
    const { callback, uuid } = JSON.parse(json) as StoredSettings;
    return {
      name,
      callback,
      uuid: uuid ?? null,
      // Their own fields (the ingest script reads them); records written before kept copies in the JSON.
      maxEvents: Number(max),
      timeoutMs: Number(timeout),
      topics: topics.sort(),
      paused: paused === '1',
      ordered: ordered === '1',
      signingSecrets: typeof secrets === 'string' ? (JSON.parse(secrets) as string[]) : [],
    };
  }

  async listSubscribers(): Promise<SubscriberRecord[]> {
    const names = (await this.client.smembers(this.keys.subscribers)).sort();
    const found = await Promise.all(names.map((name) => this.getSubscriber(name)));
    return found.filter((s): s is SubscriberRecord => s !== undefined);
  }

  async removeSubscriber(name: string): Promise<boolean> {
    const k = this.keys;
    const removed = await routerScripts(this.client).routerRemoveSubscriber(
      k.subscribers,
      k.all,
      k.early,
      k.due,
      k.pending,
      k.holders,
      k.subscriber(name),
      k.subscriberTopics(name),
      k.subscriberBatches(name),
      k.subscriberReady(name),
      k.prefix,
      name,
    );
    return removed === 1;
  }

  unsubscribe(name: string, topic: string): Promise<'removed' | 'no-subscriber' | 'not-subscribed'> {
    const k = this.keys;
    return routerScripts(this.client).routerUnsubscribe(
      k.subscriber(name),
      k.subscriberTopics(name),
      k.topicSubscribers(topic),
      name,
      topic,
    );
  }

  async setPaused(name: string, paused: boolean): Promise<boolean> {
    const k = this.keys;
    const set = await routerScripts(this.client).routerSetPaused(
      k.subscriber(name),
      k.due,
      k.wake,
      k.prefix,
      name,
      paused ? 1 : 0,
    );
    return set === 1;
  }

  async addSigningSecret(name: string, secret: string, keep = SIGNING_SECRETS_KEPT): Promise<boolean> {
    const added = await routerScripts(this.client).routerAddSigningSecret(
      this.keys.subscriber(name),
      secret,
      keptSecrets(keep),
    );
    return added === 1;
  }

  removeSigningSecrets(
    name: string,
    which: SigningSecretsToRemove,
  ): Promise<'removed' | 'none' | 'no-subscriber'> {
    return routerScripts(this.client).routerRemoveSigningSecrets(this.keys.subscriber(name), which);
  }
}

/** The settings kept as a subscriber's `record` JSON: those with no field of their own. */
type StoredSettings = Pick<SubscriberRecord, 'name' | 'callback' | 'uuid'>;
