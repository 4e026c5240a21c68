import { randomUUID } from 'node:crypto';
import type { HandlerJob } from '../../handlers/handler-job.js';
import { MalformedParkedWorkError } from '../../scheduling/errors/malformed-parked-work.error.js';
import type { ParkedWork } from '../../scheduling/parked-work.js';
import { compareRules, parseRuleId, ruleId } from '../../scheduling/rule-id.js';
import type { RuleKind, RuleTarget, SchedulingRule } from '../../scheduling/scheduling-rule.js';
import type { SchedulingRuleStore } from '../../scheduling/scheduling-rule-store.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { schedulingScripts } from './scheduling-scripts.js';

// Items released per round trip, and how long a release may hold a handler's
// lock before another process may take over (it renews it per batch).
const RELEASE_BATCH = 100;
const RELEASE_LOCK_MS = 10_000;

/**
 * `SchedulingRuleStore` on Redis, under the bus's prefix: rules in one
 * hash, parked work in one list per handler (plus a set of the handlers that
 * have some), dropped runs counted in a hash. Rules survive worker restarts.
 */
export class RedisSchedulingRuleStore implements SchedulingRuleStore {
  /**
   * @param client - a connection that fails fast while Redis is away.
   * @param names - the bus's Redis names.
   * @param enqueue - adds released work to the handler job queues.
   * @param unavailable - wraps a Redis error into the error to throw.
   */
  constructor(
    private readonly client: RedisClient,
    private readonly names: QueueNames,
    private readonly enqueue: (jobs: HandlerJob[]) => Promise<void>,
    private readonly unavailable: (action: string, error: unknown) => Error,
  ) {}

  setRule(kind: RuleKind, target: RuleTarget, since: Date): Promise<boolean> {
    return this.call(`set a ${kind} rule`, async () => {
      return (await this.client.hsetnx(this.names.rules, ruleId(kind, target), since.getTime())) === 1;
    });
  }

  removeRule(kind: RuleKind, target: RuleTarget): Promise<boolean> {
    return this.call(`remove a ${kind} rule`, async () => {
      return (await this.client.hdel(this.names.rules, ruleId(kind, target))) === 1;
    });
  }

  listRules(): Promise<SchedulingRule[]> {
    return this.call('read the scheduling rules', async () => {
      const rules: SchedulingRule[] = [];
      for (const [id, since] of Object.entries(await this.client.hgetall(this.names.rules))) {
        const parsed = parseRuleId(id);
        if (parsed !== undefined) rules.push({ ...parsed, since: new Date(Number(since)) });
      }
      return rules.sort(compareRules);
    });
  }

  park(work: ParkedWork): Promise<void> {
    const { handler } = work.job;
    return this.call(`park work of ${handler}`, async () => {
      await schedulingScripts(this.client).commitbusParkWork(
        this.list(handler),
        this.names.parkedHandlers,
        handler,
        JSON.stringify(work),
      );
    });
  }

  async unpark(handler: string, releasable: (work: ParkedWork) => boolean): Promise<number> {
    const action = `release parked work of ${handler}`;
    const scripts = schedulingScripts(this.client);
    const [list, lock, handlers] = [
      this.list(handler),
      `${this.list(handler)}:lock`,
      this.names.parkedHandlers,
    ];
    const token = randomUUID();
    const release = (count: number, unlock: boolean) =>
      this.call(action, () =>
        scripts.commitbusReleaseParkedWork(list, lock, handlers, token, count, handler, unlock ? '1' : '0'),
      );
    let released = 0;
    for (;;) {
      const items = await this.call(action, () =>
        scripts.commitbusClaimParkedWork(list, lock, token, RELEASE_LOCK_MS, RELEASE_BATCH),
      );
      if (items === null) return released; // another process is releasing this handler's work
      const works = items.map((item) => parseParkedWork(item, list));
      let count = 0;
      while (count < works.length && releasable(works[count] as ParkedWork)) count++;
      const done = count < RELEASE_BATCH;
      if (count > 0) {
        try {
          await this.call(action, () => this.enqueue(works.slice(0, count).map((work) => work.job)));
        } catch (error) {
          await release(0, true).catch(() => {}); // the lock would expire anyway
          throw error;
        }
      }
      // Lock lost (-1): the next holder enqueues these items again, under the same job ids.
      if ((await release(count, done)) < 0) return released;
      released += count;
      if (done) return released;
    }
  }

  parkedHandlers(): Promise<string[]> {
    return this.call('list handlers with parked work', () => this.client.smembers(this.names.parkedHandlers));
  }

  parkedCount(handler?: string): Promise<number> {
    return this.call('count parked work', async () => {
      const handlers =
        handler === undefined ? await this.client.smembers(this.names.parkedHandlers) : [handler];
      const lengths = await Promise.all(handlers.map((h) => this.client.llen(this.list(h))));
      return lengths.reduce((sum, n) => sum + n, 0);
    });
  }

  countDropped(handler: string): Promise<void> {
    return this.call(`count dropped work of ${handler}`, async () => {
      await this.client.hincrby(this.names.dropped, handler, 1);
    });
  }

  droppedCount(handler?: string): Promise<number> {
    return this.call('count dropped work', async () => {
      const counts =
        handler === undefined
          ? await this.client.hvals(this.names.dropped)
          : [(await this.client.hget(this.names.dropped, handler)) ?? '0'];
      return counts.reduce((sum, n) => sum + Number(n), 0);
    });
  }

  private list(handler: string): string {
    return `${this.names.parked}:${handler}`;
  }

  private async call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.unavailable(action, error);
    }
  }
}

function parseParkedWork(item: string, list: string): ParkedWork {
  try {
    return JSON.parse(item) as ParkedWork;
  } catch (error) {
    throw new MalformedParkedWorkError(list, { cause: error });
  }
}
