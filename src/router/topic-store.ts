import type { TopicRecord } from './topic.js';

/** The port of the topics' catalogue (publishing to one is {@link BatchStore.ingest}). */
export interface TopicStore {
  /** Every topic, by name. */
  listTopics(): Promise<TopicRecord[]>;
  /** Creates the topics that do not exist yet, with no publisher. */
  ensureTopics(names: readonly string[]): Promise<void>;
  /**
   * Removes a topic and every subscription to it (queued events stay with
   * their subscribers); returns `false` when there was no such topic.
   */
  removeTopic(name: string): Promise<boolean>;
}
