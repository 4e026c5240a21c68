import {
  ATTEMPT_LOG_SIZE,
  type DeliveryAttempt,
  type DeliveryAttemptLog,
} from '../../router/delivery-attempt-log.js';
import type { RedisClient } from './redis-client.js';

// A log no attempt was written to for this long expires: a removed subscriber's does not stay.
const IDLE_TTL_SECONDS = 7 * 86_400;

/**
 * `DeliveryAttemptLog` on Redis: each subscriber's attempts as JSON in a
 * list, newest at the head, trimmed to {@link ATTEMPT_LOG_SIZE} in the
 * MULTI that pushes. The keys are `<tag>:router-attempts:<subscriber>`,
 * beside the router's own keys (not under `:router:`, whose keys are the
 * delivery state), under the bus's hash tag.
 */
export class RedisDeliveryAttemptLog implements DeliveryAttemptLog {
  constructor(
    private readonly client: RedisClient,
    private readonly tag: string,
  ) {}

  async record(subscriber: string, attempt: DeliveryAttempt): Promise<void> {
    const key = this.key(subscriber);
    await this.client
      .multi()
      .lpush(key, JSON.stringify(attempt))
      .ltrim(key, 0, ATTEMPT_LOG_SIZE - 1)
      .expire(key, IDLE_TTL_SECONDS)
      .exec();
  }

  async recent(subscriber: string, limit = ATTEMPT_LOG_SIZE): Promise<DeliveryAttempt[]> {
    const count = Math.max(1, Math.min(limit, ATTEMPT_LOG_SIZE));
    const items = await this.client.lrange(this.key(subscriber), 0, count - 1);
    return items.flatMap((item) => {
      try {
        return [JSON.parse(item) as DeliveryAttempt];
      } catch {
        // A damaged entry is left out: the log is for reading, never for delivery.
        return [];
      }
    });
  }

  private key(subscriber: string): string {
    return `${this.tag}:router-attempts:${subscriber}`;
  }
}
