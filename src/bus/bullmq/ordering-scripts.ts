import { luaScripts } from './lua-scripts.js';

/** The ordered lanes' scripts (see the `.lua` files for their arguments). */
export interface OrderingScripts {
  /** Runs a batch of lane steps for a worker; one reply per step. */
  commitbusOrderedSteps(prefix: string, worker: string, ...steps: (string | number)[]): Promise<unknown[]>;
  /** Renews a lease, recovers dead workers' lanes, queues due retries. */
  commitbusOrderedMaintain(
    prefix: string,
    worker: string,
    leaseMs: number,
    limit: number,
  ): Promise<[number, number]>;
  /** A worker leaves; resolves to how many lanes went back. */
  commitbusOrderedLeave(prefix: string, worker: string): Promise<number>;
  /** Re-drives or skips halted lanes; resolves to how many resumed. */
  commitbusOrderedResume(prefix: string, mode: string, ...lanes: string[]): Promise<number>;
}

/** The scripts, defined once per connection. */
export const orderingScripts = luaScripts<OrderingScripts>({
  commitbusOrderedSteps: { file: 'ordered-steps', keys: 0 },
  commitbusOrderedMaintain: { file: 'ordered-maintain', keys: 0 },
  commitbusOrderedLeave: { file: 'ordered-leave', keys: 0 },
  commitbusOrderedResume: { file: 'ordered-resume', keys: 0 },
});
