import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const lua = (name: string) => readFileSync(new URL(`./scripts/${name}.lua`, import.meta.url), 'utf8');
const PARK_WORK = lua('park-work');
const CLAIM_PARKED_WORK = lua('claim-parked-work');
const RELEASE_PARKED_WORK = lua('release-parked-work');

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

const defined = new WeakSet<Redis>();

/** The scripts, defined once per connection. */
export function schedulingScripts(client: Redis): Redis & SchedulingScripts {
  if (!defined.has(client)) {
    client.defineCommand('commitbusParkWork', { numberOfKeys: 2, lua: PARK_WORK });
    client.defineCommand('commitbusClaimParkedWork', { numberOfKeys: 2, lua: CLAIM_PARKED_WORK });
    client.defineCommand('commitbusReleaseParkedWork', { numberOfKeys: 3, lua: RELEASE_PARKED_WORK });
    defined.add(client);
  }
  return client as Redis & SchedulingScripts;
}
