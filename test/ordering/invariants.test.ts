/**
 * The invariants of ordered lanes (listed in `src/transports/redis/scripts/ordered-steps.lua`), checked on the
 * store port itself, against Redis and in memory, with simulated workers (plain ids) instead of handlers.
 * The state is read through the port too (`OrderingStore.inspect`), the same way on both adapters.
 *
 * A randomized model-based test interleaves publishing (explicit positions out of order and republished,
 * or store-assigned ones), take, waitAndClaim, done (with and without fan-out), later, halt, resume,
 * release, maintain, workers that die, stall past their lease and come back, or leave; after every
 * operation it reads the raw state and checks the invariants and the replies against a model, and at the
 * end it drains every lane and checks each accepted event was completed once, in order, none skipped.
 * The focused cases over the same port (takeover after a worker dies, out-of-order arrival,
 * republished positions, halts, retries, fan-out and leaving) are the conformance suite's
 * (test/conformance/ordering-store/cases.conformance.test.ts).
 *
 * The randomized runs use a seeded PRNG; a failure names its seed. Rerun one with
 * `ORDERING_SEED=<seed> ORDERING_RUNS=1 npx vitest run test/ordering/invariants.test.ts`
 * (`ORDERING_RUNS` and `ORDERING_OPS` also make longer explorations). In memory the clock is faked,
 * so a seed replays exactly; on Redis the time is real, so the operations replay but timing may differ.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, it, vi } from 'vitest';
import { asyncLane, syncLane } from '../../src/ordering/lane.js';
import type { HaltReason, LaneEvent, LaneStep, StepReply } from '../../src/ordering/ordering-store.js';
import { MemoryEventLog } from '../../src/transports/memory/memory.event-log.js';
import { MemoryOrderingStore } from '../../src/transports/memory/memory.ordering-store.js';
import { queueNames } from '../../src/transports/redis/queue-names.js';
import { RedisOrderingStore } from '../../src/transports/redis/redis.ordering-store.js';
import { RedisStreamEventLog } from '../../src/transports/redis/redis-stream.event-log.js';
import {
  type Current,
  failure,
  type Harness,
  laneState,
  type Publish,
  publishThrough,
  type Snapshot,
  toSnapshot,
} from '../conformance/ordering-store/harness.js';
import { deleteKeys, openRedis, testPrefix } from '../helpers/redis.js';

const PREFIX = testPrefix('ordering-invariants');
const redis = openRedis();
const blocking = openRedis();

afterAll(async () => {
  await deleteKeys(redis, PREFIX);
  await Promise.all([redis.quit(), blocking.quit()]);
});

// ---------------------------------------------------------------------------------------------------------
// The adapters, driven the way the model needs: in memory on a fake clock, so a seed replays exactly.

let harnesses = 0;

function redisHarness(): Harness {
  const names = queueNames({ prefix: PREFIX, name: `h${++harnesses}` });
  const P = names.ordering;
  const store = new RedisOrderingStore(redis, P, blocking);
  return {
    store,
    publish: publishThrough(new RedisStreamEventLog(redis, names, 60_000)),
    snapshot: async (lanes, workers) => toSnapshot(await store.inspect(lanes, workers)),
    pass: (ms) => sleep(ms),
    // A worker crashing inside waitAndClaim, between its two Redis calls: not a port operation.
    popOnly: (worker) => blocking.blmove(`${P}ready`, `${P}w:${worker}`, 'RIGHT', 'LEFT', 0.01),
  };
}

function memoryHarness(fakeClock: boolean): Harness {
  const store = new MemoryOrderingStore();
  return {
    store,
    // Ordered events reach the memory lanes the way the memory transport sends them.
    publish: publishThrough(
      new MemoryEventLog(60_000, undefined, (lane, payload, position) =>
        store.append(lane, payload, position),
      ),
    ),
    snapshot: async (lanes, workers) => toSnapshot(await store.inspect(lanes, workers)),
    pass: async (ms) => {
      if (fakeClock) vi.setSystemTime(Date.now() + ms);
      else await sleep(ms);
    },
  };
}

const ADAPTERS: [string, (fakeClock: boolean) => Harness][] = [
  ['RedisOrderingStore', () => redisHarness()],
  ['MemoryOrderingStore', (fakeClock) => memoryHarness(fakeClock)],
];

// ---------------------------------------------------------------------------------------------------------
// The randomized model.

const SEED =
  process.env.ORDERING_SEED === undefined
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.ORDERING_SEED);
const RUNS = Number(process.env.ORDERING_RUNS ?? 3);
const OPS = Number(process.env.ORDERING_OPS ?? 250);
const LEASE_MS = 100;
const HANDLERS = ['h1', 'h2'];

/** mulberry32: small, seedable, good enough to pick operations. */
class Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing');
    return items[this.int(items.length)] as T;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}

class InvariantError extends Error {}

function ensure(condition: boolean, what: string, detail?: () => unknown): asserts condition {
  if (!condition) {
    throw new InvariantError(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail())}`}`);
  }
}

/**
 * What the model expects a lane's current event to carry the next time it is
 * handed out: the store's own shape, `cd` being its deliveries when it was
 * last handed out, or after the last step that changed them.
 */
type Expected = Current;

/** What the model knows of one lane. */
interface Track {
  readonly lane: string;
  readonly key: string;
  /** explicit: positions given by the publisher; auto: the store's; async: fanned out. */
  readonly kind: 'explicit' | 'auto' | 'async';
  /** Accepted events by position, as stored. */
  readonly accepted: Map<number, string>;
  /** Explicit lanes: positions not published yet. */
  readonly unpublished: number[];
  /** Events completed (a `done` not answered `lost`), in order. */
  readonly done: { pos: number; seq: number; prev: number | undefined; payload: string; fanOut: string[] }[];
  current: Expected | undefined;
}

/** A simulated worker. */
interface Sim {
  readonly id: string;
  /**
   * live: acts and renews its lease; stalled: neither until `wakeAt` (a long pause), then goes on with
   * what it held; dead: never acts again; gone: left.
   */
  state: 'live' | 'stalled' | 'dead' | 'gone';
  /** The lane events it was handed and has not stepped yet. */
  readonly holding: Map<string, LaneEvent>;
  renewedAt: number;
  wakeAt: number;
}

function payloadOf(track: Track, pos: number): string {
  const stored = track.accepted.get(pos);
  if (stored === undefined) throw new InvariantError(`${track.lane}: no accepted event at ${pos}`);
  return track.kind === 'async' ? stored.split('|').slice(2).join('|') : stored;
}

function isEvent(reply: StepReply): reply is LaneEvent {
  return typeof reply === 'object';
}

class ModelRun {
  private readonly tracks = new Map<string, Track>();
  private readonly sims = new Map<string, Sim>();
  private state!: Snapshot;
  private maxSeq = 0;
  private handouts = 0;
  private readonly trace: string[] = [];

  constructor(
    private readonly h: Harness,
    private readonly rng: Rng,
  ) {}

  /** The last operations, for the failure message. */
  recent(): string {
    return this.trace.slice(-25).join('\n');
  }

  async run(ops: number): Promise<void> {
    const keys = 2 + this.rng.int(3);
    for (let k = 0; k < keys; k++) {
      const key = `k${k}`;
      const kind = k % 2 === 0 ? 'explicit' : 'auto';
      const planned = kind === 'explicit' ? 4 + this.rng.int(9) : 0;
      this.addTrack(syncLane(key), key, kind, planned);
      for (const handler of HANDLERS) this.addTrack(asyncLane(handler, key), key, 'async', 0);
    }
    this.state = await this.snap();
    for (let i = 0; i < ops; i++) {
      await this.housekeeping();
      await this.randomOp();
    }
    await this.drain();
    await this.finalChecks();
  }

  private addTrack(lane: string, key: string, kind: Track['kind'], planned: number): void {
    this.tracks.set(lane, {
      lane,
      key,
      kind,
      accepted: new Map(),
      unpublished: Array.from({ length: planned }, (_, i) => i + 1),
      done: [],
      current: undefined,
    });
  }

  private track(lane: string): Track {
    const t = this.tracks.get(lane);
    if (t === undefined) throw new InvariantError(`unknown lane ${lane}`);
    return t;
  }

  private snap(): Promise<Snapshot> {
    return this.h.snapshot(this.tracks.keys(), this.sims.keys());
  }

  private live(): Sim[] {
    return [...this.sims.values()].filter((s) => s.state === 'live');
  }

  /** Runs one store call and reads the state after it. */
  private async act<T>(label: string, call: () => Promise<T>): Promise<[T, Snapshot, Snapshot]> {
    this.trace.push(label);
    const pre = this.state;
    const result = await call();
    this.trace.push(`  -> ${JSON.stringify(result)}`);
    const post = await this.snap();
    this.state = post;
    return [result, pre, post];
  }

  // --- operations -----------------------------------------------------------------------------------------

  private async randomOp(): Promise<void> {
    const live = this.live();
    const holders = live.filter((s) => s.holding.size > 0);
    const halted = [...this.state.lanes].filter(([, s]) => s.halted).map(([lane]) => lane);
    const r = this.rng.next() * 100;
    if (r < 22) return this.publishOp();
    if (r < 38) return this.takeOp(this.rng.pick(live), 1 + this.rng.int(3));
    if (r < 42 && this.state.ready.length > 0) return this.waitAndClaimOp(this.rng.pick(live));
    if (r < 70 && holders.length > 0) return this.stepsOp(this.rng.pick(holders), false);
    if (r < 74) return this.maintainOp(this.rng.pick(live));
    if (r < 78 && halted.length > 0) return this.resumeOp(halted);
    if (r < 81) return this.inspectOp();
    if (r < 85) return this.h.pass(3 + this.rng.int(25));
    if (this.sims.size >= 14) return this.publishOp();
    const victim = this.rng.pick(live);
    if (r < 89) {
      if (this.h.popOnly !== undefined && this.state.ready.length > 0 && this.rng.chance(0.3)) {
        await this.popOnlyOp(victim);
      }
      this.trace.push(`${victim.id} dies`);
      victim.state = 'dead';
    } else if (r < 94) {
      this.trace.push(`${victim.id} stalls`);
      victim.state = 'stalled';
      victim.wakeAt = Date.now() + LEASE_MS * (1.3 + this.rng.next());
    } else {
      await this.leaveOp(victim);
    }
  }

  /** Wakes stalled workers whose time came, renews the live ones' leases, keeps two workers live. */
  private async housekeeping(): Promise<void> {
    for (const sim of this.sims.values()) {
      if (sim.state === 'stalled' && Date.now() >= sim.wakeAt) await this.wake(sim);
    }
    for (const sim of this.live()) {
      if (Date.now() - sim.renewedAt > LEASE_MS / 3) await this.maintainOp(sim);
    }
    while (this.live().length < 2) {
      const sim: Sim = {
        id: `w${this.sims.size + 1}`,
        state: 'live',
        holding: new Map(),
        renewedAt: 0,
        wakeAt: 0,
      };
      this.sims.set(sim.id, sim);
      this.trace.push(`${sim.id} starts`);
      await this.maintainOp(sim);
    }
  }

  /**
   * A stalled worker goes on as if nothing happened: it renews its lease first, finishes what it held
   * first, or takes more first (and may crash right after, before renewing).
   */
  private async wake(sim: Sim): Promise<void> {
    this.trace.push(`${sim.id} wakes`);
    sim.state = 'live';
    const mode = this.rng.int(3);
    if (mode === 0) await this.maintainOp(sim);
    else if (mode === 1 && sim.holding.size > 0) await this.stepsOp(sim, true);
    else if (mode === 2) {
      if (this.state.ready.length > 0 && this.rng.chance(0.3)) await this.waitAndClaimOp(sim);
      else await this.takeOp(sim, 1 + this.rng.int(2));
      if (this.rng.chance(0.4)) {
        this.trace.push(`${sim.id} dies before renewing`);
        sim.state = 'dead';
      }
    }
  }

  private async publishOp(batch?: Publish[]): Promise<void> {
    const pre = this.state;
    const events: Publish[] = batch ?? [];
    if (batch === undefined) {
      const syncTracks = [...this.tracks.values()].filter((t) => t.kind !== 'async');
      for (let n = 1 + this.rng.int(3); n > 0; n--) {
        const t = this.rng.pick(syncTracks);
        if (t.kind === 'auto') {
          events.push({ lane: t.lane, payload: '' });
        } else if (t.unpublished.length > 0 && !this.rng.chance(0.25)) {
          // Out of order: any of the next three positions not published yet.
          const [pos] = t.unpublished.splice(this.rng.int(Math.min(3, t.unpublished.length)), 1) as [number];
          events.push({ lane: t.lane, payload: `${t.lane}#${pos}`, position: pos });
        } else {
          // A republished position: handled already, waiting, or earlier in this batch.
          const seen = [
            ...t.accepted.keys(),
            ...events.filter((e) => e.lane === t.lane).map((e) => e.position as number),
          ];
          if (seen.length === 0) continue;
          const pos = this.rng.pick(seen);
          events.push({ lane: t.lane, payload: `${t.lane}#${pos}`, position: pos, republish: true });
        }
      }
    }
    if (events.length === 0) return;
    // What the store must accept: a position neither handled (below next) nor present is new.
    let drops = 0;
    const added: { lane: string; pos: number; payload: string }[] = [];
    const tails = new Map<string, number>();
    for (const e of events) {
      const s = laneState(pre, e.lane);
      if (e.position === undefined) {
        const pos = (tails.get(e.lane) ?? s.tail) + 1;
        tails.set(e.lane, pos);
        e.payload = `${e.lane}@${pos}`;
        added.push({ lane: e.lane, pos, payload: e.payload });
      } else if (
        e.position < s.next ||
        s.events.has(e.position) ||
        added.some((a) => a.lane === e.lane && a.pos === e.position)
      ) {
        drops++;
      } else {
        added.push({ lane: e.lane, pos: e.position, payload: e.payload });
      }
    }
    const label = events.map((e) => `${e.lane}${e.position === undefined ? '' : `@${e.position}`}`).join(' ');
    const [dropped, , post] = await this.act(`publish ${label}`, () => this.h.publish(events));
    ensure(dropped === drops, `publish dropped ${dropped} events, expected ${drops}`);
    for (const a of added) {
      const t = this.track(a.lane);
      t.accepted.set(a.pos, a.payload);
      ensure(
        laneState(post, a.lane).events.get(a.pos) === a.payload,
        `${a.lane}: published event not stored at ${a.pos}`,
      );
    }
    this.verify(pre, post, new Set());
  }

  private async takeOp(sim: Sim, max: number): Promise<void> {
    const [events, pre, post] = await this.act(`${sim.id} take ${max}`, () => this.h.store.take(sim.id, max));
    ensure(events.length <= max, `take ${max} returned ${events.length} events`);
    for (const event of events) {
      ensure(pre.ready.includes(event.lane), `${event.lane} was taken without being in ready`);
      this.claimed(sim, event, pre, post);
    }
    this.verify(pre, post, new Set());
  }

  /** A worker pops a lane (`waitAndClaim`'s blocking pop) and dies before it claims it. */
  private async popOnlyOp(sim: Sim): Promise<void> {
    const popOnly = this.h.popOnly as (worker: string) => Promise<string | null>;
    const [lane, pre, post] = await this.act(`${sim.id} pops without claiming`, () => popOnly(sim.id));
    ensure(lane !== null && (post.taken.get(sim.id) ?? []).includes(lane), 'the popped lane is in its list');
    this.verify(pre, post, new Set());
  }

  private async waitAndClaimOp(sim: Sim): Promise<void> {
    const [event, pre, post] = await this.act(`${sim.id} waitAndClaim`, () =>
      this.h.store.waitAndClaim(sim.id, 20),
    );
    if (event !== undefined) {
      ensure(pre.ready.includes(event.lane), `${event.lane} was claimed without being in ready`);
      this.claimed(sim, event, pre, post);
    }
    this.verify(pre, post, new Set());
  }

  /** Steps some of the lanes a worker holds; in the final drain (or when a stalled worker wakes) all are done. */
  private async stepsOp(sim: Sim, finish: boolean): Promise<void> {
    const pre = this.state;
    const lanes = this.rng.shuffle([...sim.holding.keys()]);
    const chosen = finish ? lanes : lanes.slice(0, 1 + this.rng.int(lanes.length));
    const steps: LaneStep[] = chosen.map((lane) => {
      const event = sim.holding.get(lane) as LaneEvent;
      const t = this.track(lane);
      const r = finish ? 0 : this.rng.next();
      const attemptsMade = event.attemptsMade + 1;
      const failures = [...event.failures, failure(attemptsMade)];
      const from = t.kind === 'async' ? 0 : this.rng.int(3);
      if (r < 0.68) {
        const fanOut = t.kind === 'async' ? [] : HANDLERS.filter(() => this.rng.chance(0.5));
        return { op: 'done', lane, position: event.position, fanOut: fanOut.map((h) => asyncLane(h, t.key)) };
      }
      if (r < 0.86) {
        const delayMs = this.rng.int(40);
        return { op: 'later', lane, position: event.position, delayMs, attemptsMade, failures, from };
      }
      if (r < 0.93) {
        const why: HaltReason = this.rng.chance(0.8)
          ? { handler: 'h0', reason: 'exhausted', error: `gave up on ${lane}@${event.position}` }
          : { reason: 'malformed', error: 'cannot decode' };
        return { op: 'halt', lane, position: event.position, attemptsMade, failures, from, why };
      }
      return { op: 'release', lane };
    });
    // A step of a worker that is not the lane's owner at that event is lost, whatever its lease.
    const lost = steps.map((step) => {
      if (step.op === 'release') return false;
      const s = laneState(pre, step.lane);
      return !(s.owner === sim.id && s.cur?.pos === step.position);
    });
    const doneLanes = new Set(steps.filter((s, i) => s.op === 'done' && !lost[i]).map((s) => s.lane));
    const label = steps
      .map(
        (s) =>
          `${s.op} ${s.lane}${'position' in s ? `@${s.position}` : ''}${s.op === 'done' ? ` ->[${s.fanOut}]` : ''}`,
      )
      .join(', ');
    const [replies, , post] = await this.act(`${sim.id} steps ${label}`, () =>
      this.h.store.steps(sim.id, steps),
    );
    ensure(replies.length === steps.length, 'one reply per step');
    for (const [i, step] of steps.entries()) {
      const reply = replies[i] as StepReply;
      const t = this.track(step.lane);
      sim.holding.delete(step.lane);
      if (step.op === 'release') {
        ensure(reply === 'ok', `release answered ${JSON.stringify(reply)}`);
        if (laneState(pre, step.lane).owner === sim.id) {
          ensure(laneState(post, step.lane).owner === undefined, `${step.lane}: released but still owned`);
          // Invariant 5: handed back unrun, the hand-out does not count.
          const cur = t.current as Expected;
          t.current = { ...cur, cd: Math.max(0, cur.cd - 1) };
          // Queued again: q set (in ready, or popped by a worker whose list a sweep hands back).
          ensure(laneState(post, step.lane).q, `${step.lane}: released but not queued`);
        }
        continue;
      }
      if (lost[i]) {
        ensure(
          reply === 'lost',
          `${sim.id} ${step.op} ${step.lane}@${step.position}: not its lane's owner at that event, but answered ${JSON.stringify(reply)}`,
        );
        continue;
      }
      ensure(
        reply !== 'lost',
        `${sim.id} ${step.op} ${step.lane}@${step.position}: the owner's step was answered lost`,
      );
      const cur = t.current;
      ensure(
        cur?.pos === step.position,
        `${step.lane}: stepped event ${step.position} is not the current one`,
        () => cur,
      );
      if (step.op === 'later' || step.op === 'halt') {
        ensure(reply === 'ok', `${step.op} answered ${JSON.stringify(reply)}`);
        t.current = {
          ...cur,
          ca: step.attemptsMade,
          cf: JSON.stringify(step.failures),
          from: step.from,
          skip: undefined,
          cd: 0,
        };
        const s = laneState(post, step.lane);
        ensure(s.owner === undefined, `${step.lane}: still owned after ${step.op}`);
        if (step.op === 'later') ensure(s.retryAt !== undefined, `${step.lane}: not waiting after later`);
        else ensure(s.halted && s.halt === JSON.stringify(step.why), `${step.lane}: not halted after halt`);
        continue;
      }
      // done: the lane completes the event at exactly its next position; fan-outs go to the async lanes' tails.
      ensure(
        step.position === t.done.length + 1,
        `${step.lane}: completed ${step.position} after ${t.done.length} events`,
      );
      const payload = payloadOf(t, step.position);
      t.done.push({ pos: step.position, seq: cur.seq, prev: cur.prev, payload, fanOut: [...step.fanOut] });
      t.current = undefined;
      for (const lane of step.fanOut) {
        const a = this.track(lane);
        a.accepted.set(a.accepted.size + 1, `${cur.seq}|${cur.prev ?? ''}|${payload}`);
      }
      if (isEvent(reply)) this.handed(sim, reply, step.position + 1, post);
      else ensure(reply === 'empty', `done answered ${JSON.stringify(reply)}`);
    }
    this.verify(pre, post, doneLanes);
  }

  private async maintainOp(sim: Sim): Promise<void> {
    sim.renewedAt = Date.now();
    const [, pre, post] = await this.act(`${sim.id} maintain`, () => this.h.store.maintain(sim.id, LEASE_MS));
    ensure(post.leases.has(sim.id), `${sim.id}: no lease after maintain`);
    this.verify(pre, post, new Set());
  }

  private async leaveOp(sim: Sim): Promise<void> {
    sim.state = 'gone';
    sim.holding.clear();
    const [, pre, post] = await this.act(`${sim.id} leaves`, () => this.h.store.leave(sim.id));
    // Its lease is expired, not removed: a blocking pop still in flight may
    // yet land in its list, and the next sweep hands that back too.
    ensure(
      !((post.leases.get(sim.id) ?? 0) > post.now) && (post.taken.get(sim.id) ?? []).length === 0,
      `${sim.id} still holds a lease or lanes after leaving`,
    );
    for (const lane of pre.taken.get(sim.id) ?? []) {
      ensure(post.ready.includes(lane), `${lane}: not handed back by ${sim.id} leaving`);
    }
    for (const [lane, s] of post.lanes)
      ensure(s.owner !== sim.id, `${lane}: still owned by ${sim.id}, who left`);
    this.verify(pre, post, new Set());
  }

  private async resumeOp(halted: string[]): Promise<void> {
    const chosen = this.rng.shuffle(halted).slice(0, 1 + this.rng.int(halted.length));
    if (this.rng.chance(0.3)) chosen.push(this.rng.pick([...this.tracks.keys()]));
    const mode = this.rng.chance(0.5) ? 'redrive' : 'skip';
    const [resumed, pre, post] = await this.act(`resume ${mode} ${chosen.join(' ')}`, () =>
      this.h.store.resume(mode, chosen),
    );
    const wasHalted = [...new Set(chosen)].filter((lane) => laneState(pre, lane).halted);
    ensure(resumed === wasHalted.length, `resume answered ${resumed}, ${wasHalted.length} were halted`);
    for (const lane of wasHalted) {
      const t = this.track(lane);
      const cur = t.current as Expected;
      t.current =
        mode === 'redrive'
          ? { ...cur, ca: 0, cf: '[]', cd: 0 }
          : { ...cur, skip: laneState(pre, lane).halt, cd: 0 };
      const s = laneState(post, lane);
      // Queued again: q set (in ready, or popped by a worker whose list a sweep hands back).
      ensure(!s.halted && s.halt === undefined && s.q, `${lane}: not queued after resume`);
    }
    this.verify(pre, post, new Set());
  }

  /** The port's read methods agree with the raw state. */
  private async inspectOp(): Promise<void> {
    const s = this.state;
    const [halted, pending, inHalted] = await Promise.all([
      this.h.store.halted(),
      this.h.store.pending(),
      this.h.store.pendingInHalted(),
    ]);
    const haltedLanes = [...s.lanes].filter(([, l]) => l.halted);
    ensure(pending === s.pending, `pending() ${pending}, state ${s.pending}`);
    ensure(
      inHalted === haltedLanes.reduce((sum, [, l]) => sum + l.events.size, 0),
      `pendingInHalted() ${inHalted}`,
    );
    ensure(halted.length === haltedLanes.length, 'halted() lists the halted lanes');
    for (const entry of halted) {
      const l = laneState(s, entry.lane);
      const cur = l.cur as Current;
      ensure(
        l.halted &&
          entry.waiting === l.events.size &&
          JSON.stringify(entry.why) === l.halt &&
          entry.event.position === cur.pos &&
          entry.event.seq === cur.seq &&
          entry.event.prev === cur.prev &&
          entry.event.attemptsMade === cur.ca &&
          JSON.stringify(entry.event.failures) === cur.cf &&
          entry.event.from === cur.from &&
          entry.event.payload === payloadOf(this.track(entry.lane), cur.pos),
        `halted() entry of ${entry.lane} disagrees with the state`,
        () => ({ entry, cur }),
      );
    }
  }

  // --- checks ---------------------------------------------------------------------------------------------

  /** A lane event handed to `sim`: at `expectedPos`, and the lane's current event, never another one. */
  /** A lane event `sim` claimed (take, waitAndClaim): never from another owner whose lease is live. */
  private claimed(sim: Sim, event: LaneEvent, pre: Snapshot, post: Snapshot): void {
    const before = laneState(pre, event.lane);
    const owner = before.owner;
    // Its lease outlasting the snapshot after the claim means it was live during the claim.
    ensure(
      owner === undefined || owner === sim.id || !((post.leases.get(owner) ?? 0) > post.now),
      `${event.lane}: claimed by ${sim.id} from ${owner}, whose lease is live (invariant 2)`,
    );
    this.handed(sim, event, before.next, post);
  }

  private handed(sim: Sim, event: LaneEvent, expectedPos: number, post: Snapshot): void {
    const t = this.track(event.lane);
    this.handouts++;
    ensure(
      event.position === expectedPos,
      `${event.lane}: handed out ${event.position}, next was ${expectedPos}`,
    );
    ensure(event.payload === payloadOf(t, event.position), `${event.lane}@${event.position}: wrong payload`);
    const got: Expected = {
      pos: event.position,
      seq: event.seq,
      prev: event.prev,
      ca: event.attemptsMade,
      cf: JSON.stringify(event.failures),
      from: event.from,
      skip: event.skipped === undefined ? undefined : JSON.stringify(event.skipped),
      cd: event.deliveries,
    };
    if (t.current !== undefined) {
      // Invariant 3: a current event, whoever gets it next, is the same event at the same seq and prev;
      // invariant 5: handed out once more.
      ensure(
        JSON.stringify(got) === JSON.stringify({ ...t.current, cd: t.current.cd + 1 }),
        `${event.lane}: current event handed out changed (invariant 3)`,
        () => ({ got, expected: t.current }),
      );
    } else if (t.kind === 'async') {
      const [seq, prev] = (t.accepted.get(event.position) as string).split('|');
      ensure(
        String(event.seq) === seq && (event.prev === undefined ? '' : String(event.prev)) === prev,
        `${event.lane}@${event.position}: seq/prev are not the sync event's`,
        () => got,
      );
      ensure(
        got.ca === 0 && got.cf === '[]' && got.from === 0 && got.skip === undefined && got.cd === 1,
        'fresh event carries attempts or deliveries',
      );
    } else {
      // Invariant 4: seq grows, and prev is the seq of the event the lane handled before.
      ensure(
        event.seq > this.maxSeq,
        `${event.lane}: seq ${event.seq} does not grow past ${this.maxSeq} (invariant 4)`,
      );
      ensure(
        event.prev === t.done.at(-1)?.seq,
        `${event.lane}: prev ${event.prev} is not the previous event's seq ${t.done.at(-1)?.seq} (invariant 4)`,
      );
      ensure(
        got.ca === 0 && got.cf === '[]' && got.from === 0 && got.skip === undefined && got.cd === 1,
        'fresh event carries attempts or deliveries',
      );
    }
    if (t.kind !== 'async') this.maxSeq = Math.max(this.maxSeq, event.seq);
    t.current = got;
    sim.holding.set(event.lane, event);
    const s = laneState(post, event.lane);
    ensure(
      s.owner === sim.id && s.cur?.pos === event.position,
      `${event.lane}: handed to ${sim.id} but not owned by it`,
      () => s,
    );
  }

  /** The state invariants after an operation, and how it may differ from the state before. */
  private verify(pre: Snapshot, post: Snapshot, doneLanes: Set<string>): void {
    this.checkState(post);
    ensure(post.seq >= pre.seq, 'the seq counter went back');
    for (const [lane, b] of post.lanes) {
      const a = laneState(pre, lane);
      // Invariant 2: next only grows, by one per completed event.
      const done = doneLanes.has(lane);
      ensure(b.next === a.next + (done ? 1 : 0), `${lane}: next went ${a.next} -> ${b.next} (invariant 2)`);
      ensure(b.last === (done ? a.cur?.seq : a.last), `${lane}: last changed without a done`);
      // Invariant 3: the current event stays until done, with its seq and prev.
      if (a.cur !== undefined && !done) {
        ensure(
          b.cur !== undefined &&
            b.cur.pos === a.cur.pos &&
            b.cur.seq === a.cur.seq &&
            b.cur.prev === a.cur.prev,
          `${lane}: current event re-assigned (invariant 3)`,
          () => ({ before: a.cur, after: b.cur }),
        );
      }
    }
  }

  private checkState(s: Snapshot): void {
    const registered = (w: string) => s.leases.has(w);
    const heldBy = (lane: string) =>
      [...s.taken].filter(([w, lanes]) => registered(w) && lanes.includes(lane)).map(([w]) => w);
    let pending = 0;
    for (const [lane, l] of s.lanes) {
      const t = this.track(lane);
      pending += l.events.size;
      const at = () => ({
        lane,
        ...l,
        events: [...l.events],
        ready: s.ready,
        taken: [...s.taken],
        leases: [...s.leases],
      });
      // The model's view: completed events are gone, accepted ones wait at their positions.
      ensure(
        l.next === t.done.length + 1,
        `${lane}: next ${l.next} after ${t.done.length} completed events`,
        at,
      );
      for (const [pos, stored] of l.events) {
        ensure(pos >= l.next, `${lane}: event ${pos} below next ${l.next} would never run`, at);
        ensure(t.accepted.get(pos) === stored, `${lane}: stored event at ${pos} is not the accepted one`, at);
      }
      for (const [pos, stored] of t.accepted) {
        if (pos >= l.next) ensure(l.events.get(pos) === stored, `${lane}: accepted event ${pos} missing`, at);
      }
      if (l.cur !== undefined) {
        ensure(
          l.cur.pos === l.next && l.events.has(l.cur.pos),
          `${lane}: current event is not the next one`,
          at,
        );
        ensure(
          l.cur.cd === t.current?.cd,
          `${lane}: current event delivered ${l.cur.cd} times, expected ${t.current?.cd} (invariant 5)`,
          at,
        );
        ensure(l.cur.seq <= s.seq, `${lane}: current seq beyond the counter`, at);
        if (t.kind === 'async') {
          ensure(
            (l.events.get(l.cur.pos) as string).startsWith(`${l.cur.seq}|${l.cur.prev ?? ''}|`),
            `${lane}: current seq/prev are not the stored ones`,
            at,
          );
        } else {
          ensure(
            l.cur.prev === l.last,
            `${lane}: current prev is not the last handled seq (invariant 4)`,
            at,
          );
          ensure(
            l.cur.prev === undefined || l.cur.seq > l.cur.prev,
            `${lane}: seq not past prev (invariant 4)`,
            at,
          );
        }
      }
      // Invariant 2 (the seed's "if OBJ:event.worker == W then event.worker:W:object == OBJ"): an owner holds
      // the lane in its list under a lease, so if it dies the lane goes back; and it was the last one handed
      // the lane's event.
      if (l.owner !== undefined) {
        ensure(l.cur !== undefined, `${lane}: owned without a current event`, at);
        ensure(
          registered(l.owner) && (s.taken.get(l.owner) ?? []).includes(lane),
          `${lane}: owner ${l.owner} does not hold it under a lease: nothing would hand it back (invariant 2)`,
          at,
        );
        const owner = this.sims.get(l.owner);
        ensure(
          owner?.holding.get(lane)?.position === l.cur.pos,
          `${lane}: owner ${l.owner} was not handed its current event`,
          at,
        );
      }
      if (l.halted)
        ensure(
          l.halt !== undefined && l.cur !== undefined && l.owner === undefined,
          `${lane}: halted badly`,
          at,
        );
      if (l.retryAt !== undefined) {
        ensure(l.cur !== undefined && l.owner === undefined && !l.halted, `${lane}: waiting badly`, at);
      }
      // `q` means "in ready, or popped by a worker about to claim it": else later events would not queue it.
      if (l.q)
        ensure(s.ready.includes(lane) || heldBy(lane).length > 0, `${lane}: q set but queued nowhere`, at);
      // Invariant 1: an event at next is covered by someone.
      if (l.events.has(l.next)) {
        const covered =
          s.ready.includes(lane) ||
          l.retryAt !== undefined ||
          l.halted ||
          heldBy(lane).some((w) => l.q || l.owner === w);
        ensure(covered, `${lane}: event ${l.next} is covered by nobody (invariant 1)`, at);
      }
    }
    ensure(s.pending === pending, `pending counter ${s.pending}, ${pending} events in lanes`);
  }

  // --- the end of a run -----------------------------------------------------------------------------------

  /** Publishes what is left and lets live workers finish everything (re-driving or skipping halts). */
  private async drain(): Promise<void> {
    this.trace.push('--- drain');
    const rest: Publish[] = [];
    for (const t of this.tracks.values()) {
      for (const pos of this.rng.shuffle(t.unpublished.splice(0))) {
        rest.push({ lane: t.lane, payload: `${t.lane}#${pos}`, position: pos });
      }
    }
    if (rest.length > 0) await this.publishOp(rest);
    for (const sim of this.sims.values()) if (sim.state === 'stalled') sim.state = 'dead';
    // Stuck means no event handed out or completed for 100 rounds (2 s of leases and retries coming due).
    for (let idle = 0; !this.finished(); ) {
      ensure(idle < 100, 'the lanes did not drain', () => ({
        lanes: [...this.state.lanes].map(([lane, l]) => ({ lane, ...l, events: [...l.events] })),
        ready: this.state.ready,
        taken: [...this.state.taken],
        leases: [...this.state.leases],
        now: this.state.now,
        sims: [...this.sims.values()].map((w) => [w.id, w.state, [...w.holding.keys()]]),
      }));
      const before = this.progress();
      await this.housekeeping();
      const halted = [...this.state.lanes].filter(([, s]) => s.halted).map(([lane]) => lane);
      if (halted.length > 0) await this.resumeOp(halted);
      for (const sim of this.live()) {
        if (sim.holding.size > 0) await this.stepsOp(sim, true);
        else await this.takeOp(sim, 4);
      }
      if (this.progress() > before) idle = 0;
      else if (!this.finished()) {
        idle++;
        await this.h.pass(20);
      }
    }
  }

  private progress(): number {
    return [...this.tracks.values()].reduce((sum, t) => sum + t.done.length, this.handouts);
  }

  private finished(): boolean {
    return (
      this.state.pending === 0 &&
      [...this.tracks.values()].every((t) => t.unpublished.length === 0 && t.done.length === t.accepted.size)
    );
  }

  private async finalChecks(): Promise<void> {
    for (const t of this.tracks.values()) {
      // Every accepted event completed once, in position order, none skipped.
      ensure(
        t.done.every((d, i) => d.pos === i + 1 && d.payload === payloadOf(t, d.pos)),
        `${t.lane}: completed out of order`,
        () => t.done,
      );
      if (t.kind === 'explicit') {
        ensure(
          t.accepted.size === Math.max(0, ...t.accepted.keys()),
          `${t.lane}: a published position is missing`,
        );
      }
      if (t.kind === 'async') {
        // Each async lane saw its key's events in the sync lane's order, with their seq and prev.
        const sync = this.track(syncLane(t.key));
        const expected = sync.done
          .filter((d) => d.fanOut.includes(t.lane))
          .map((d) => [d.seq, d.prev, d.payload]);
        ensure(
          JSON.stringify(t.done.map((d) => [d.seq, d.prev, d.payload])) === JSON.stringify(expected),
          `${t.lane}: did not get the sync lane's events in order`,
        );
      } else {
        t.done.forEach((d, i) => {
          ensure(d.prev === t.done[i - 1]?.seq, `${t.lane}: prev chain broken at ${d.pos}`);
        });
      }
    }
    ensure(
      (await this.h.store.pending()) === 0 && (await this.h.store.pendingInHalted()) === 0,
      'events left after the drain',
    );
    ensure((await this.h.store.halted()).length === 0, 'halted lanes left after the drain');
    for (const [lane, l] of this.state.lanes) {
      ensure(
        l.cur === undefined && l.owner === undefined && !l.halted && l.retryAt === undefined,
        `${lane}: not idle after the drain`,
      );
    }
  }
}

describe.each(ADAPTERS)('%s: randomized model', (name, harness) => {
  it(
    'keeps the invariants over random runs (the seed is in the failure)',
    async () => {
      const fakeClock = name === 'MemoryOrderingStore';
      for (let run = 0; run < RUNS; run++) {
        const seed = (SEED + run) >>> 0;
        if (fakeClock) vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
        const model = new ModelRun(harness(fakeClock), new Rng(seed));
        try {
          await model.run(OPS);
        } catch (error) {
          throw new Error(
            `${name}: run with seed ${seed} failed: ${(error as Error).message}\n` +
              `rerun: ORDERING_SEED=${seed} ORDERING_RUNS=1 npx vitest run test/ordering/invariants.test.ts\n` +
              `last operations:\n${model.recent()}`,
            { cause: error },
          );
        } finally {
          if (fakeClock) vi.useRealTimers();
        }
      }
    },
    30_000 + RUNS * OPS * 20,
  );
});
