import type { SubscriberRecord } from './subscriber.js';

/** The port of the subscribers' catalogue. */
export interface SubscriberStore {
  /**
   * Creates or replaces a subscriber: its settings and its topics (it stops
   * receiving topics left out). Its queued events stay.
   */
  saveSubscriber(subscriber: SubscriberRecord): Promise<void>;
  /** One subscriber, or `undefined`. */
  getSubscriber(name: string): Promise<SubscriberRecord | undefined>;
  /** Every subscriber, by name. */
  listSubscribers(): Promise<SubscriberRecord[]>;
  /** Removes a subscriber with its topics and its queued batches; `false` when there was none. */
  removeSubscriber(name: string): Promise<boolean>;
  /** Stops one subscriber receiving one topic. */
  unsubscribe(name: string, topic: string): Promise<'removed' | 'no-subscriber' | 'not-subscribed'>;
  /** Pauses or resumes a subscriber's deliveries; `false` when there is no such subscriber. */
  setPaused(name: string, paused: boolean): Promise<boolean>;
}
