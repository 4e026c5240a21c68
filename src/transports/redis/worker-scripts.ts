import { luaScripts } from './lua-scripts.js';

/** The Redis worker registry's scripts (see `worker-beat.lua` and `worker-list.lua` for KEYS/ARGV). */
export interface WorkerScripts {
  /** Stores a beat stamped with Redis's clock; resolves to that time (epoch ms). */
  commitbusWorkerBeat(workers: string, id: string, beat: string): Promise<number>;
  /** Removes records older than `retainMs`; resolves to Redis's clock then every record kept. */
  commitbusWorkerList(workers: string, retainMs: number): Promise<[number, ...string[]]>;
}

/** The scripts, defined once per connection. */
export const workerScripts = luaScripts<WorkerScripts>({
  commitbusWorkerBeat: { file: 'worker-beat', keys: 1 },
  commitbusWorkerList: { file: 'worker-list', keys: 1 },
});
