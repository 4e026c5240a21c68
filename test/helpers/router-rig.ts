import type { DeadLetterStore } from '../../src/dead-letters/dead-letter-store.js';
import type { BatchStore } from '../../src/router/batch-store.js';
import type { DeliveryAttemptLog } from '../../src/router/delivery-attempt-log.js';
import type { SubscriberRecord } from '../../src/router/subscriber.js';
import type { SubscriberStore } from '../../src/router/subscriber-store.js';
import type { TopicStore } from '../../src/router/topic-store.js';

/** The router's stores one test runs on (memory, or Redis under a fresh prefix). */
export interface RouterRig {
  /** `memory` or `redis`. */
  readonly kind: string;
  readonly batches: BatchStore;
  readonly subscribers: SubscriberStore;
  readonly topics: TopicStore;
  readonly deadLetters: DeadLetterStore;
  /** The delivery attempt log. */
  readonly attempts: DeliveryAttemptLog;
  /** Removes what the test left and closes connections. */
  close(): Promise<void>;
}

/** A subscriber record with test defaults. */
export function subscriberRecord(
  name: string,
  callback: string,
  fields: Partial<SubscriberRecord> = {},
): SubscriberRecord {
  return {
    name,
    callback,
    uuid: `uuid-of-${name}`,
    maxEvents: 100,
    timeoutMs: 0,
    topics: ['orders'],
    paused: false,
    ordered: false,
    signingSecrets: [],
    ...fields,
  };
}

/** Saves `record` (creating its topics), then its paused state and signing secrets, which have their own operations. */
export async function subscribe(rig: RouterRig, record: SubscriberRecord): Promise<void> {
  await rig.topics.ensureTopics(record.topics);
  await rig.subscribers.saveSubscriber(record);
  if (record.paused) await rig.subscribers.setPaused(record.name, true);
  const secrets = record.signingSecrets;
  for (const secret of [...secrets].reverse()) {
    await rig.subscribers.addSigningSecret(record.name, secret, secrets.length);
  }
}

/** An event as the router stores it, `n` in its data. */
export function routerEvent(topic: string, n: number): string {
  return JSON.stringify({
    topic,
    type: 'create',
    url: `https://example.com/orders/${n}`,
    t: 1_700_000_000_000 + n,
    data: { n },
  });
}

/** Publishes events numbered `from..to` (inclusive) to `topic`, one ingest call. */
export async function publish(rig: RouterRig, topic: string, from: number, to: number): Promise<void> {
  const events: string[] = [];
  for (let n = from; n <= to; n++) events.push(routerEvent(topic, n));
  const result = await rig.batches.ingest('publisher', topic, events, Date.now());
  if (!result.ok) throw new Error(`topic ${topic} is owned by ${result.owner}`);
}
