/**
 * The randomized model of ordered lanes that `invariants-redis.test.ts` and
 * `invariants-sql.test.ts` run on the `OrderingStore` port: what the model
 * knows of each lane and simulated worker, and its seeded PRNG.
 *
 * The invariants are those listed in `src/transports/redis/scripts/ordered-steps.lua`, checked on the
 * store port itself, against Redis and the SQL tables (PostgreSQL, SQLite), with simulated workers (plain ids) instead of handlers.
 * The state is read through the port too (`OrderingStore.inspect`), the same way on both adapters.
 *
 * A run interleaves publishing (explicit positions out of order and republished, or store-assigned
 * ones), take, waitAndClaim, done (with and without fan-out), later, halt, resume, release, maintain,
 * workers that die, stall past their lease and come back, or leave; after every operation it reads the
 * raw state and checks the invariants and the replies against the model, and at the end it drains every
 * lane and checks each accepted event was completed once, in order, none skipped. The classes build on
 * each other, one file each: `ModelState` (what the model knows, and the checks after every
 * operation: invariants-state.ts), `ModelSteps` (a worker's steps and their replies: invariants-steps.ts),
 * `ModelOperations` (everything else a run does: invariants-operations.ts) and `ModelRun` (a whole run,
 * its drain and final checks: invariants-run.ts). The focused cases over the same port (takeover after a
 * worker dies, out-of-order arrival, republished positions, halts, retries, fan-out and leaving) are the
 * conformance suite's (test/conformance/ordering-store/cases.conformance.test.ts).
 *
 * The runs use a seeded PRNG; a failure names its seed and the command that reruns it
 * (`ORDERING_SEED=<seed> ORDERING_RUNS=1 npx vitest run test/ordering/invariants-<adapter>.test.ts`;
 * `ORDERING_RUNS` and `ORDERING_OPS` also make longer explorations). The time is real, so the
 * operations replay but timing may differ.
 */
import type { LaneEvent, StepReply } from '../../src/ordering/ordering-store.js';
import type { Current } from '../conformance/ordering-store/harness.js';

/** The first run's seed: `ORDERING_SEED`, else a random one. */
export const SEED =
  process.env.ORDERING_SEED === undefined
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.ORDERING_SEED);
/** Runs per adapter (`ORDERING_RUNS`, 3). */
export const RUNS = Number(process.env.ORDERING_RUNS ?? 3);
/** Operations per run before the drain (`ORDERING_OPS`, 250). */
export const OPS = Number(process.env.ORDERING_OPS ?? 250);
/** The simulated workers' lease. */
export const LEASE_MS = 100;
/** The async handlers an event may fan out to. */
export const HANDLERS = ['h1', 'h2'];

/** How long one adapter's runs may take. */
export const MODEL_TIMEOUT_MS = 30_000 + RUNS * OPS * 20;

/**
 * `fallback` unless `ORDERING_<name>` is set, then `given` (`RUNS` or `OPS`):
 * for an adapter whose runs are smaller by default than the others'.
 */
export function sizeOr(name: 'RUNS' | 'OPS', given: number, fallback: number): number {
  return process.env[`ORDERING_${name}`] === undefined ? fallback : given;
}

/** mulberry32: small, seedable, good enough to pick operations. */
export class Rng {
  private a: number;
  /** Starts at `seed` (as an unsigned 32-bit integer). */
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  /** A number in [0, 1). */
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** One of `items` (not empty). */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing');
    return items[this.int(items.length)] as T;
  }
  /** `items` in a random order (a copy). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}

/** A broken invariant, or a reply the model did not expect. */
export class InvariantError extends Error {}

/** Throws an {@link InvariantError} saying `what` (and `detail()`, as JSON) unless `condition` holds. */
export function ensure(condition: boolean, what: string, detail?: () => unknown): asserts condition {
  if (!condition) {
    throw new InvariantError(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail())}`}`);
  }
}

/**
 * What the model expects a lane's current event to carry the next time it is
 * handed out: the store's own shape, `cd` being its deliveries when it was
 * last handed out, or after the last step that changed them.
 */
export type Expected = Current;

/** What the model knows of one lane. */
export interface Track {
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
export interface Sim {
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

/** The payload of `track`'s accepted event at `pos`, as handed out (async lanes: without `seq|prev|`). */
export function payloadOf(track: Track, pos: number): string {
  const stored = track.accepted.get(pos);
  if (stored === undefined) throw new InvariantError(`${track.lane}: no accepted event at ${pos}`);
  return track.kind === 'async' ? stored.split('|').slice(2).join('|') : stored;
}

/** Whether a step's reply is the lane's next event (a `done` handing it out at once). */
export function isEvent(reply: StepReply): reply is LaneEvent {
  return typeof reply === 'object';
}
