import type { WorkerBeat, WorkerList, WorkerRecord, WorkerRegistry } from '../../handlers/worker-registry.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { workerScripts } from './worker-scripts.js';

/**
 * `WorkerRegistry` on Redis: one hash per bus under its hash tag
 * (`{<prefix>:<name>}:workers`), a field per worker holding its last beat
 * stamped with Redis's `TIME`; a list removes the records past the
 * retention in the same script, so it works on a Redis Cluster as on one Redis.
 */
export class RedisWorkerRegistry implements WorkerRegistry {
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

  async beat(worker: WorkerBeat): Promise<void> {
    const beat = JSON.stringify({ ...worker, startedAt: worker.startedAt.getTime() });
    try {
      await workerScripts(this.client).commitbusWorkerBeat(this.names.workers, worker.id, beat);
    } catch (error) {
      throw this.unavailable(`store the beat of worker ${worker.id}`, error);
    }
  }

  async leave(id: string): Promise<void> {
    try {
      await this.client.hdel(this.names.workers, id);
    } catch (error) {
      throw this.unavailable(`remove worker ${id}`, error);
    }
  }

  async list(retainMs: number): Promise<WorkerList> {
    let reply: [number, ...string[]];
    try {
      reply = await workerScripts(this.client).commitbusWorkerList(this.names.workers, retainMs);
    } catch (error) {
      throw this.unavailable('list the workers', error);
    }
    const [now, ...values] = reply;
    const workers = values.map(decodeWorker).sort((a, b) => b.lastBeatAt.getTime() - a.lastBeatAt.getTime());
    return { now: new Date(Number(now)), workers };
  }
}

/** A hash value, `<lastBeatAt ms>|<beat JSON>`, as a record. */
function decodeWorker(value: string): WorkerRecord {
  const bar = value.indexOf('|');
  const beat = JSON.parse(value.slice(bar + 1)) as Omit<WorkerBeat, 'startedAt'> & { startedAt: number };
  return {
    id: beat.id,
    host: beat.host,
    pid: beat.pid,
    version: beat.version,
    transport: beat.transport,
    concurrency: beat.concurrency,
    busy: beat.busy,
    startedAt: new Date(beat.startedAt),
    lastBeatAt: new Date(Number(value.slice(0, bar))),
  };
}
