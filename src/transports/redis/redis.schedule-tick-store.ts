import type { ScheduleTickStore } from '../../scheduling/schedule-tick-store.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { scheduleScripts } from './schedule-scripts.js';

/**
 * `ScheduleTickStore` on Redis: each schedule's last tick (epoch ms) a field
 * of one hash under the bus's hash tag (`{<prefix>:<name>}:schedule-ticks`),
 * claimed by one script call (a compare-and-set), so it works on a Redis
 * Cluster as on one Redis.
 */
export class RedisScheduleTickStore implements ScheduleTickStore {
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

  async claim(name: string, tickAt: Date): Promise<boolean> {
    try {
      const won = await scheduleScripts(this.client).commitbusClaimScheduleTick(
        this.names.scheduleTicks,
        name,
        tickAt.getTime(),
      );
      return won === 1;
    } catch (error) {
      throw this.unavailable(`claim a tick of schedule ${name}`, error);
    }
  }

  async lastTick(name: string): Promise<Date | undefined> {
    let last: string | null;
    try {
      last = await this.client.hget(this.names.scheduleTicks, name);
    } catch (error) {
      throw this.unavailable(`read the last tick of schedule ${name}`, error);
    }
    return last === null ? undefined : new Date(Number(last));
  }
}
