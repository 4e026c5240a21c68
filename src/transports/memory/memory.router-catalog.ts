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
import { MemoryRouterState } from './memory.router-state.js';

/**
 * {@link TopicStore} and {@link SubscriberStore} in this process's memory,
 * with the Redis adapter's semantics. Its {@link MemoryBatchStore} is built
 * on it (`new MemoryBatchStore(catalog)`), as both share the subscribers.
 * Saving a subscriber creates its topics when missing and keeps its paused
 * state and signing secrets; topics are listed by name.
 */
export class MemoryRouterCatalog implements TopicStore, SubscriberStore {
  /** The state shared with the batch store. */
  readonly state = new MemoryRouterState();

  async listTopics(): Promise<TopicRecord[]> {
    return [...this.state.topics.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, t]) => ({ name, publisher: t.publisher, events: t.events }));
  }

  async ensureTopics(names: readonly string[]): Promise<void> {
    for (const name of names)
      if (!this.state.topics.has(name)) this.state.topics.set(name, { publisher: null, events: 0 });
  }

  async removeTopic(name: string): Promise<boolean> {
    for (const sub of this.state.subscribers.values()) sub.topics.delete(name);
    return this.state.topics.delete(name);
  }

  async saveSubscriber(subscriber: SubscriberSettings): Promise<void> {
    // Picked one by one: a whole SubscriberRecord may be given, its paused and secrets to be ignored.
    const { name, callback, uuid, maxEvents, timeoutMs, topics, ordered } = subscriber;
    const settings = { name, callback, uuid };
    await this.ensureTopics(topics);
    const known = this.state.subscribers.get(name);
    if (known === undefined) {
      this.state.addSubscriber(
        name,
        {
          ...settings,
          maxEvents: maxEvents ?? SUBSCRIBER_DEFAULTS.maxEvents,
          timeoutMs: timeoutMs ?? SUBSCRIBER_DEFAULTS.timeoutMs,
          ordered: ordered ?? false,
          paused: false,
          signingSecrets: [],
        },
        topics,
      );
      return;
    }
    // Paused and the secrets stay: they change only through their own operations; what is left out stays.
    known.record = {
      ...known.record,
      ...settings,
      maxEvents: maxEvents ?? known.record.maxEvents,
      timeoutMs: timeoutMs ?? known.record.timeoutMs,
      ordered: ordered ?? known.record.ordered,
    };
    known.topics.clear();
    for (const topic of topics) known.topics.add(topic);
    // `paused` or `ordered` may have changed what it may send.
    this.state.lineUp(subscriber.name);
  }

  async getSubscriber(name: string): Promise<SubscriberRecord | undefined> {
    const sub = this.state.subscribers.get(name);
    if (sub === undefined) return undefined;
    return { ...sub.record, signingSecrets: [...sub.record.signingSecrets], topics: [...sub.topics].sort() };
  }

  async listSubscribers(): Promise<SubscriberRecord[]> {
    const names = [...this.state.subscribers.keys()].sort();
    const found: SubscriberRecord[] = [];
    for (const name of names) {
      const sub = await this.getSubscriber(name);
      if (sub !== undefined) found.push(sub);
    }
    return found;
  }

  async removeSubscriber(name: string): Promise<boolean> {
    return this.state.removeSubscriber(name);
  }

  async unsubscribe(name: string, topic: string): Promise<'removed' | 'no-subscriber' | 'not-subscribed'> {
    const sub = this.state.subscribers.get(name);
    if (sub === undefined) return 'no-subscriber';
    return sub.topics.delete(topic) ? 'removed' : 'not-subscribed';
  }

  async setPaused(name: string, paused: boolean): Promise<boolean> {
    const sub = this.state.subscribers.get(name);
    if (sub === undefined) return false;
    sub.record = { ...sub.record, paused };
    this.state.lineUp(name);
    if (!paused) this.state.wake();
    return true;
  }

  async addSigningSecret(name: string, secret: string, keep = SIGNING_SECRETS_KEPT): Promise<boolean> {
    const kept = keptSecrets(keep);
    const sub = this.state.subscribers.get(name);
    if (sub === undefined) return false;
    const signingSecrets = [secret, ...sub.record.signingSecrets].slice(0, kept);
    sub.record = { ...sub.record, signingSecrets };
    return true;
  }

  async removeSigningSecrets(
    name: string,
    which: SigningSecretsToRemove,
  ): Promise<'removed' | 'none' | 'no-subscriber'> {
    const sub = this.state.subscribers.get(name);
    if (sub === undefined) return 'no-subscriber';
    const left = which === 'previous' ? 1 : 0;
    if (sub.record.signingSecrets.length <= left) return 'none';
    sub.record = { ...sub.record, signingSecrets: sub.record.signingSecrets.slice(0, left) };
    return 'removed';
  }
}
