import { luaScripts } from './lua-scripts.js';

/** The ordered lanes' scripts (see the `.lua` files for their KEYS and ARGV). */
export interface OrderingScripts {
  /** Runs a batch of lane steps for a worker; one reply per step. `keyCount` keys come first. */
  commitbusOrderedSteps(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<unknown[]>;
  /** Renews a lease, recovers dead workers' lanes, queues due retries. */
  commitbusOrderedMaintain(
    ready: string,
    workers: string,
    retry: string,
    gaps: string,
    prefix: string,
    worker: string,
    leaseMs: number,
    limit: number,
  ): Promise<[number, number]>;
  /** A worker leaves; resolves to how many lanes went back. */
  commitbusOrderedLeave(
    ready: string,
    workers: string,
    list: string,
    prefix: string,
    worker: string,
  ): Promise<number>;
  /** Re-bases a sync lane on purpose (see `ordered-rebase.lua` for its reply). */
  commitbusOrderedRebase(
    ready: string,
    gaps: string,
    rebased: string,
    rebases: string,
    lane: string,
    events: string,
    laneName: string,
    position: string,
  ): Promise<string[]>;
  /** Re-drives or skips halted lanes; resolves to how many resumed. `keyCount` keys come first. */
  commitbusOrderedResume(keyCount: number, ...keysAndArgs: string[]): Promise<number>;
}

/** The re-bases record the positions they skip (`includes/lane-skipped.lua`). */
const SKIPPED = ['lane-skipped'];

/** The scripts, defined once per connection. */
export const orderingScripts = luaScripts<OrderingScripts>({
  commitbusOrderedSteps: { file: 'ordered-steps', keys: 'counted', includes: SKIPPED },
  commitbusOrderedMaintain: { file: 'ordered-maintain', keys: 4 },
  commitbusOrderedRebase: { file: 'ordered-rebase', keys: 6, includes: SKIPPED },
  commitbusOrderedLeave: { file: 'ordered-leave', keys: 3 },
  commitbusOrderedResume: { file: 'ordered-resume', keys: 'counted' },
});
