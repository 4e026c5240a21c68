import {
  HISTORY_MINUTES,
  type HistoryPoint,
  type HistoryReading,
  type HistorySample,
  type HistoryStore,
} from '../../metrics/history-store.js';
import { historyScripts } from './history-scripts.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';

/**
 * `HistoryStore` on Redis: one hash per bus under its hash tag
 * (`{<prefix>:<name>}:history`), a field per minute on Redis's `TIME`; the
 * script that adds into a new minute removes the minutes past the
 * retention, so it works on a Redis Cluster as on one Redis.
 */
export class RedisHistoryStore implements HistoryStore {
  /**
   * @param client - a connection that fails fast while Redis is away.
   * @param names - the bus's Redis names.
   * @param unavailable - wraps a Redis error into the error to throw.
   */
  constructor(
    private readonly client: RedisClient,
    private readonly names: QueueNames,
    private readonly unavailable: (action: string, error: unknown) => Error,
  ) {}

  async record(sample: HistorySample): Promise<void> {
    try {
      await historyScripts(this.client).commitbusHistoryRecord(
        this.names.history,
        whole(sample.published),
        whole(sample.handled),
        whole(sample.failed),
        whole(sample.retried),
        whole(sample.deadLettered),
        gauge(sample.backlog),
        gauge(sample.backlogAgeMs),
        HISTORY_MINUTES,
      );
    } catch (error) {
      throw this.unavailable('record the history', error);
    }
  }

  async read(sinceMs: number): Promise<HistoryReading> {
    let reply: [number, ...string[]];
    try {
      reply = await historyScripts(this.client).commitbusHistoryRead(
        this.names.history,
        Math.max(0, Math.floor(sinceMs)),
        HISTORY_MINUTES,
      );
    } catch (error) {
      throw this.unavailable('read the history', error);
    }
    const [now, ...pairs] = reply;
    const minutes: HistoryPoint[] = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      minutes.push(decodeMinute(pairs[i] as string, pairs[i + 1] as string));
    }
    minutes.sort((a, b) => a.minute.getTime() - b.minute.getTime());
    return { now: new Date(Number(now)), minutes };
  }
}

function whole(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0;
}

function gauge(n: number | null): string {
  return n === null || !Number.isFinite(n) ? '-' : String(Math.max(0, Math.round(n)));
}

/** A hash field and value, as a minute. */
function decodeMinute(field: string, value: string): HistoryPoint {
  const [published, handled, failed, retried, deadLettered, backlog, backlogAgeMs] = value.split(' ');
  const count = (part: string | undefined) => Number(part ?? 0);
  const sampled = (part: string | undefined) => (part === undefined || part === '-' ? null : Number(part));
  return {
    minute: new Date(Number(field)),
    published: count(published),
    handled: count(handled),
    failed: count(failed),
    retried: count(retried),
    deadLettered: count(deadLettered),
    backlog: sampled(backlog),
    backlogAgeMs: sampled(backlogAgeMs),
  };
}
