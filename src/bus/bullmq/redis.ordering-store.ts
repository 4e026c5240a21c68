import type { Redis } from 'ioredis';
import type {
  HaltedLane,
  HaltReason,
  LaneEvent,
  LaneStep,
  OrderingStore,
  StepReply,
} from '../../ordering/ordering-store.js';
import { orderingScripts } from './ordering-scripts.js';

const RECOVER_LIMIT = 1_000;

/**
 * {@link OrderingStore} on Redis: lanes, ownership and worker leases under
 * `<prefix>:<name>:ord:`, every change one Lua script (`ordered-*.lua`, whose
 * header lists the keys and the invariants).
 */
export class RedisOrderingStore implements OrderingStore {
  /**
   * @param client - connection for scripts and reads.
   * @param prefix - the ordering prefix (`QueueNames.ordering`).
   * @param blocking - connection for blocking waits (a worker's own).
   */
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private readonly blocking: Redis = client,
  ) {}

  /** The same store, waiting for lanes on a connection of its own. */
  withBlockingClient(blocking: Redis): RedisOrderingStore {
    return new RedisOrderingStore(this.client, this.prefix, blocking);
  }

  private get scripts() {
    return orderingScripts(this.client);
  }

  async take(worker: string, max: number): Promise<LaneEvent[]> {
    const [reply] = await this.scripts.commitbusOrderedSteps(this.prefix, worker, 'TAKE', 1, max);
    return (reply as unknown[][]).map(toLaneEvent);
  }

  async waitAndClaim(worker: string, blockMs: number): Promise<LaneEvent | undefined> {
    const lane = await this.blocking.blmove(
      `${this.prefix}ready`,
      `${this.prefix}w:${worker}`,
      'RIGHT',
      'LEFT',
      Math.max(0.01, blockMs / 1000),
    );
    if (lane === null) return undefined;
    const [reply] = await this.scripts.commitbusOrderedSteps(this.prefix, worker, 'CLAIM', 1, lane);
    return Array.isArray(reply) ? toLaneEvent(reply) : undefined;
  }

  async steps(worker: string, steps: readonly LaneStep[]): Promise<StepReply[]> {
    if (steps.length === 0) return [];
    const args: (string | number)[] = [];
    for (const step of steps) {
      switch (step.op) {
        case 'done':
          args.push('DONE', 2 + step.fanOut.length, step.lane, step.position, ...step.fanOut);
          break;
        case 'later':
          args.push(
            'LATER',
            6,
            step.lane,
            step.position,
            Math.max(0, Math.round(step.delayMs)),
            step.attemptsMade,
            JSON.stringify(step.failures),
            step.from,
          );
          break;
        case 'halt':
          args.push(
            'HALT',
            6,
            step.lane,
            step.position,
            step.attemptsMade,
            JSON.stringify(step.failures),
            step.from,
            JSON.stringify(step.why),
          );
          break;
        case 'release':
          args.push('RELEASE', 1, step.lane);
          break;
      }
    }
    const replies = await this.scripts.commitbusOrderedSteps(this.prefix, worker, ...args);
    return replies.map((r) => (Array.isArray(r) ? toLaneEvent(r) : (String(r) as StepReply)));
  }

  async maintain(worker: string, leaseMs: number): Promise<void> {
    await this.scripts.commitbusOrderedMaintain(this.prefix, worker, leaseMs, RECOVER_LIMIT);
  }

  async leave(worker: string): Promise<void> {
    await this.scripts.commitbusOrderedLeave(this.prefix, worker);
  }

  async halted(): Promise<HaltedLane[]> {
    const flat = await this.client.zrange(`${this.prefix}halted`, 0, -1, 'WITHSCORES');
    const out: HaltedLane[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const lane = flat[i] as string;
      const [fields, waiting] = await Promise.all([
        this.client.hgetall(`${this.prefix}l:${lane}`),
        this.client.hlen(`${this.prefix}e:${lane}`),
      ]);
      if (fields.cp === undefined || fields.halt === undefined) continue;
      const stored = (await this.client.hget(`${this.prefix}e:${lane}`, fields.cp)) ?? '';
      out.push({
        lane,
        haltedAt: new Date(Number(flat[i + 1])),
        why: JSON.parse(fields.halt) as HaltReason,
        waiting,
        event: toLaneEvent([
          lane,
          fields.cp,
          fields.cs,
          fields.cv,
          fields.ca,
          fields.cf,
          fields.ch,
          '',
          lane.startsWith('a|') ? stored.split('|').slice(2).join('|') : stored,
        ]),
      });
    }
    return out;
  }

  resume(mode: 'redrive' | 'skip', lanes: readonly string[]): Promise<number> {
    if (lanes.length === 0) return Promise.resolve(0);
    return this.scripts.commitbusOrderedResume(this.prefix, mode, ...lanes);
  }

  async pending(): Promise<number> {
    return Number((await this.client.get(`${this.prefix}pending`)) ?? 0);
  }

  async pendingInHalted(): Promise<number> {
    const lanes = await this.client.zrange(`${this.prefix}halted`, 0, -1);
    let sum = 0;
    for (const lane of lanes) sum += await this.client.hlen(`${this.prefix}e:${lane}`);
    return sum;
  }
}

function toLaneEvent(reply: unknown[]): LaneEvent {
  const [lane, pos, seq, prev, ca, cf, ch, skip, payload] = reply.map((v) => String(v ?? ''));
  return {
    lane: lane as string,
    position: Number(pos),
    seq: Number(seq),
    prev: prev === '' || prev === undefined ? undefined : Number(prev),
    attemptsMade: Number(ca || 0),
    failures: cf ? JSON.parse(cf) : [],
    from: Number(ch || 0),
    skipped: skip ? (JSON.parse(skip) as HaltReason) : undefined,
    payload: payload as string,
  };
}
