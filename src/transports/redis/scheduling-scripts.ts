import { luaScripts } from './lua-scripts.js';

/** The parked-work writes of the Redis scheduling rule store (see the `.lua` files for KEYS/ARGV). */
export interface SchedulingScripts {
  /** Appends work to a handler's parked list; resolves to the list's length. */
  commitbusParkWork(list: string, handlers: string, handler: string, work: string): Promise<number>;
  /** Takes the release lock and returns the oldest items, or null when someone else holds it. */
  commitbusClaimParkedWork(
    list: string,
    lock: string,
    token: string,
    lockMs: number,
    count: number,
  ): Promise<string[] | null>;
  /** Removes `released` items from the head if the lock is still held; resolves to the items left, or -1. */
  commitbusReleaseParkedWork(
    list: string,
    lock: string,
    handlers: string,
    token: string,
    released: number,
    handler: string,
    unlock: '0' | '1',
  ): Promise<number>;
}

/** The scripts, defined once per connection. */
export const schedulingScripts = luaScripts<SchedulingScripts>({
  commitbusParkWork: { file: 'park-work', keys: 2 },
  commitbusClaimParkedWork: { file: 'claim-parked-work', keys: 2 },
  commitbusReleaseParkedWork: { file: 'release-parked-work', keys: 3 },
});
