import type { LaneRebase, RebaseLog, RebaseReply, RebaseWhy } from '../../ordering/lane-rebase.js';
import type { LaneState, OrderingState, StoredLaneEvent } from '../../ordering/ordering-state.js';
import type {
  HaltedLane,
  HaltReason,
  LaneEvent,
  LaneStep,
  OrderingStore,
  StepReply,
} from '../../ordering/ordering-store.js';
import { type LaneKeys, laneKeys } from './lane-keys.js';
import { orderingScripts } from './ordering-scripts.js';
import type { RedisClient } from './redis-client.js';

const RECOVER_LIMIT = 1_000;

/**
 * `OrderingStore` on Redis: lanes, ownership and worker leases under
 * `{<prefix>:<name>}:ord:`, every change one Lua script (`ordered-*.lua`, whose
 * header lists the keys and the invariants). Keys are built here (see
 * `LaneKeys`) and passed as KEYS, all under the bus's hash tag.
 */
export class RedisOrderingStore implements OrderingStore {
  private readonly keys: LaneKeys;

  /**
   * @param client - connection for scripts and reads.
   * @param prefix - the ordering prefix (`QueueNames.ordering`).
   * @param blocking - connection for blocking waits (a worker's own).
   * @param gapWaitMs - how long a sync lane waits for a missing position before it re-bases (`laneGapWaitMs`); 0: for ever.
   */
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly blocking: RedisClient = client,
    private readonly gapWaitMs = 0,
  ) {
    this.keys = laneKeys(prefix);
  }

  /** The same store, waiting for lanes on a connection of its own. */
  withBlockingClient(blocking: RedisClient): RedisOrderingStore {
    return new RedisOrderingStore(this.client, this.prefix, blocking, this.gapWaitMs);
  }

  private get scripts() {
    return orderingScripts(this.client);
  }

  /** Runs steps (`ordered-steps.lua`): `laneKeys` are the keys of the lanes the steps name, in order. */
  private runSteps(worker: string, laneKeys: string[], args: (string | number)[]): Promise<unknown[]> {
    const { ready, workers, retry, halted, seq, pending, gaps, rebased, rebases } = this.keys;
    const mine = this.keys.worker(worker);
    const keys = [ready, workers, mine, retry, halted, seq, pending, gaps, rebased, rebases, ...laneKeys];
    return this.scripts.commitbusOrderedSteps(
      keys.length,
      ...keys,
      this.prefix,
      worker,
      this.gapWaitMs,
      ...args,
    );
  }

  async take(worker: string, max: number): Promise<LaneEvent[]> {
    const [reply] = await this.runSteps(worker, [], ['TAKE', 1, max]);
    return (reply as unknown[][]).map(toLaneEvent);
  }

  async waitAndClaim(worker: string, blockMs: number): Promise<LaneEvent | undefined> {
    const lane = await this.blocking.blmove(
      this.keys.ready,
      this.keys.worker(worker),
      'RIGHT',
      'LEFT',
      Math.max(0.01, blockMs / 1000),
    );
    if (lane === null) return undefined;
    const [reply] = await this.runSteps(
      worker,
      [this.keys.lane(lane), this.keys.events(lane)],
      ['CLAIM', 1, lane],
    );
    return Array.isArray(reply) ? toLaneEvent(reply) : undefined;
  }

  async steps(worker: string, steps: readonly LaneStep[]): Promise<StepReply[]> {
    if (steps.length === 0) return [];
    const { lane: state, events } = this.keys;
    const keys: string[] = [];
    const args: (string | number)[] = [];
    for (const step of steps) {
      switch (step.op) {
        case 'done':
          keys.push(state(step.lane), events(step.lane));
          for (const target of step.fanOut) keys.push(state(target), events(target));
          args.push('DONE', 2 + step.fanOut.length, step.lane, step.position, ...step.fanOut);
          break;
        case 'later':
          keys.push(state(step.lane));
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
          keys.push(state(step.lane));
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
          keys.push(state(step.lane));
          args.push('RELEASE', 1, step.lane);
          break;
      }
    }
    const replies = await this.runSteps(worker, keys, args);
    return replies.map((r) => (Array.isArray(r) ? toLaneEvent(r) : (String(r) as StepReply)));
  }

  async maintain(worker: string, leaseMs: number): Promise<void> {
    const { ready, workers, retry, gaps } = this.keys;
    await this.scripts.commitbusOrderedMaintain(
      ready,
      workers,
      retry,
      gaps,
      this.prefix,
      worker,
      leaseMs,
      RECOVER_LIMIT,
    );
  }

  async leave(worker: string): Promise<void> {
    const { ready, workers } = this.keys;
    await this.scripts.commitbusOrderedLeave(ready, workers, this.keys.worker(worker), this.prefix, worker);
  }

  async halted(): Promise<HaltedLane[]> {
    const flat = await this.client.zrange(this.keys.halted, 0, -1, 'WITHSCORES');
    const out: HaltedLane[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const lane = flat[i] as string;
      const [fields, waiting] = await Promise.all([
        this.client.hgetall(this.keys.lane(lane)),
        this.client.hlen(this.keys.events(lane)),
      ]);
      if (fields.cp === undefined || fields.halt === undefined) continue;
      const stored = (await this.client.hget(this.keys.events(lane), fields.cp)) ?? '';
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
          fields.cd ?? 0,
        ]),
      });
    }
    return out;
  }

  resume(mode: 'redrive' | 'skip', lanes: readonly string[]): Promise<number> {
    if (lanes.length === 0) return Promise.resolve(0);
    const keys = [this.keys.ready, this.keys.halted, ...lanes.map((lane) => this.keys.lane(lane))];
    return this.scripts.commitbusOrderedResume(keys.length, ...keys, mode, ...lanes);
  }

  async rebase(lane: string, position?: number): Promise<RebaseReply> {
    const K = this.keys;
    const [status, a, b] = await this.scripts.commitbusOrderedRebase(
      K.ready,
      K.gaps,
      K.rebased,
      K.rebases,
      K.lane(lane),
      K.events(lane),
      lane,
      position === undefined ? '' : String(position),
    );
    if (status === 'ok') return { status, from: Number(a), to: Number(b) };
    if (status === 'busy') return { status, position: Number(a) };
    if (status === 'above') return { status, first: Number(a) };
    if (status === 'below') return { status, next: Number(a) };
    if (status === 'beyond') return { status, next: Number(a) };
    if (status === 'unknown') return { status };
    return { status: 'empty' };
  }

  async rebased(limit: number): Promise<RebaseLog> {
    const [count, lanes] = await Promise.all([
      this.client.get(this.keys.rebases),
      limit > 0 ? this.client.zrevrange(this.keys.rebased, 0, limit - 1) : Promise.resolve([]),
    ]);
    // Sent together (one round trip, not one per lane): status() reads the newest ten.
    const fields = await Promise.all(
      lanes.map((lane) => this.client.hmget(this.keys.lane(lane), 'rbf', 'rbt', 'rbw', 'rba')),
    );
    const recent: LaneRebase[] = [];
    lanes.forEach((lane, i) => {
      const [from, to, why, at] = fields[i] ?? [];
      if (from == null || to == null || why == null || at == null) return;
      recent.push({ lane, from: Number(from), to: Number(to), why: why as RebaseWhy, at: Number(at) });
    });
    return { count: Number(count ?? 0), recent };
  }

  async pending(): Promise<number> {
    return Number((await this.client.get(this.keys.pending)) ?? 0);
  }

  async inspect(lanes: Iterable<string>, workers: Iterable<string>): Promise<OrderingState> {
    const K = this.keys;
    const laneList = [...lanes];
    const workerList = [...workers];
    // MULTI: every read at the same instant, as the scripts see the keys.
    const multi = this.client
      .multi()
      .time()
      .lrange(K.ready, 0, -1)
      .zrange(K.workers, 0, -1, 'WITHSCORES')
      .zrange(K.retry, 0, -1, 'WITHSCORES')
      .zrange(K.halted, 0, -1)
      .get(K.seq)
      .get(K.pending);
    for (const worker of workerList) multi.lrange(K.worker(worker), 0, -1);
    for (const lane of laneList) multi.hgetall(K.lane(lane)).hgetall(K.events(lane));
    const results = (await multi.exec()) ?? [];
    const replies = results.map(([error, reply]) => {
      if (error) throw error;
      return reply;
    });
    let i = 0;
    const next = <T>() => replies[i++] as T;
    const [seconds, micros] = next<[string, string]>();
    const ready = next<string[]>();
    const leases = scores(next<string[]>());
    const retry = scores(next<string[]>());
    const halted = new Set(next<string[]>());
    const seq = Number(next<string | null>() ?? 0);
    const pending = Number(next<string | null>() ?? 0);
    const taken = new Map(workerList.map((worker) => [worker, next<string[]>()]));
    const states = new Map<string, LaneState>();
    for (const lane of laneList) {
      const f = next<Record<string, string | undefined>>();
      const stored = next<Record<string, string>>();
      states.set(lane, {
        tail: Number(f.tail ?? 0),
        next: Number(f.next ?? 1),
        last: optionalNumber(f.last),
        owner: f.owner,
        queued: f.q !== undefined,
        current:
          f.cp === undefined
            ? undefined
            : {
                position: Number(f.cp),
                seq: Number(f.cs),
                prev: optionalNumber(f.cv),
                attemptsMade: Number(f.ca ?? 0),
                failures: f.cf ? JSON.parse(f.cf) : [],
                from: Number(f.ch ?? 0),
                skipped: f.skip ? (JSON.parse(f.skip) as HaltReason) : undefined,
                deliveries: Number(f.cd ?? 0),
              },
        halt: f.halt ? (JSON.parse(f.halt) as HaltReason) : undefined,
        halted: halted.has(lane),
        retryAt: retry.get(lane),
        events: new Map(
          Object.entries(stored).map(([pos, value]) => [Number(pos), storedEvent(lane, value)]),
        ),
      });
    }
    return {
      now: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000),
      ready,
      leases,
      taken,
      seq,
      pending,
      lanes: states,
    };
  }

  async pendingInHalted(): Promise<number> {
    const lanes = await this.client.zrange(this.keys.halted, 0, -1);
    let sum = 0;
    for (const lane of lanes) sum += await this.client.hlen(this.keys.events(lane));
    return sum;
  }
}

function toLaneEvent(reply: unknown[]): LaneEvent {
  const [lane, pos, seq, prev, ca, cf, ch, skip, payload, cd, rebasedFrom, why] = reply.map((v) =>
    String(v ?? ''),
  );
  return {
    ...(rebasedFrom ? { rebased: { from: Number(rebasedFrom), why: why as RebaseWhy } } : {}),
    lane: lane as string,
    position: Number(pos),
    seq: Number(seq),
    prev: prev === '' || prev === undefined ? undefined : Number(prev),
    attemptsMade: Number(ca || 0),
    failures: cf ? JSON.parse(cf) : [],
    from: Number(ch || 0),
    skipped: skip ? (JSON.parse(skip) as HaltReason) : undefined,
    payload: payload as string,
    deliveries: Number(cd || 0),
  };
}

/** A sorted set read `WITHSCORES`, as a map. */
function scores(flat: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let j = 0; j < flat.length; j += 2) out.set(flat[j] as string, Number(flat[j + 1]));
  return out;
}

function optionalNumber(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

/** An event as a lane's `e:` hash keeps it: on async lanes `seq|prev|payload`. */
function storedEvent(lane: string, value: string): StoredLaneEvent {
  if (!lane.startsWith('a|')) return { payload: value };
  const [seq, prev, ...payload] = value.split('|');
  const prevSeq = optionalNumber(prev);
  return prevSeq === undefined
    ? { payload: payload.join('|'), seq: Number(seq) }
    : { payload: payload.join('|'), seq: Number(seq), prev: prevSeq };
}
