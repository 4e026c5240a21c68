/**
 * The `OrderingStore` port as the ordering suites drive it: a store, publishing
 * the way its transport does (through the transport's event log, which hands
 * ordered events to the lanes), and the state of lanes and workers read through
 * the port (`OrderingStore.inspect`) the same way on every adapter.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll } from 'vitest';
import type { CommitbusOptions } from '../../../src/config/commitbus-options.js';
import type { AttemptFailureJson } from '../../../src/dead-letters/attempt-failure.js';
import type { EventLog } from '../../../src/handlers/event-log.js';
import type { OrderingState } from '../../../src/ordering/ordering-state.js';
import type { OrderingStore } from '../../../src/ordering/ordering-store.js';
import { queueNames } from '../../../src/transports/redis/queue-names.js';
import { RedisOrderingStore } from '../../../src/transports/redis/redis.ordering-store.js';
import type { ConformanceAdapter } from '../adapters.js';
import type { ConformanceBed } from '../bed.js';

/** A lane's current event, as the store keeps it. */
export interface Current {
  pos: number;
  seq: number;
  prev: number | undefined;
  ca: number;
  /** Failures, as JSON. */
  cf: string;
  from: number;
  /** The halt reason of a skipped event, as JSON. */
  skip: string | undefined;
  /** Hand-outs since its last recorded step (invariant 5). */
  cd: number;
}

/** One lane (on Redis: the `l:<lane>` and `e:<lane>` hashes of the Lua header). */
export interface LaneState {
  tail: number;
  next: number;
  last: number | undefined;
  owner: string | undefined;
  q: boolean;
  cur: Current | undefined;
  /** Why it halted, as JSON. */
  halt: string | undefined;
  halted: boolean;
  retryAt: number | undefined;
  /** Position to the stored event (async lanes: `seq|prev|payload`). */
  events: Map<number, string>;
}

/** Everything, at one instant (`now`, in the store's clock). */
export interface Snapshot {
  now: number;
  /** `ready`, head (newest) first. */
  ready: string[];
  /** `workers`: lease expiry by worker id. */
  leases: Map<string, number>;
  /** `w:<W>` lists. */
  taken: Map<string, string[]>;
  seq: number;
  pending: number;
  lanes: Map<string, LaneState>;
}

export function laneState(s: Snapshot, lane: string): LaneState {
  const state = s.lanes.get(lane);
  if (state === undefined) throw new Error(`lane ${lane} was not read`);
  return state;
}

/** A published event. `republish` sends it without the id dedupe, so only its position can drop it. */
export interface Publish {
  lane: string;
  payload: string;
  position?: number;
  republish?: boolean;
}

/** One adapter, as the tests drive it. */
export interface Harness {
  readonly store: OrderingStore;
  /** Publishes the way the adapter's transport does; resolves to how many events were dropped. */
  publish(events: readonly Publish[]): Promise<number>;
  /** The state of these lanes and workers, read atomically through the port. */
  snapshot(lanes: Iterable<string>, workers: Iterable<string>): Promise<Snapshot>;
  /** Lets time pass (real time, on every store). */
  pass(ms: number): Promise<void>;
  /** Redis only: the first half of `waitAndClaim` (the blocking pop into `w:<W>`), without the claim. */
  popOnly?(worker: string): Promise<string | null>;
}

/** The port's state in the form the checks compare: failures, halt reasons and async events as strings. */
export function toSnapshot(state: OrderingState): Snapshot {
  const lanes = new Map<string, LaneState>();
  for (const [name, lane] of state.lanes) {
    const cur = lane.current;
    lanes.set(name, {
      tail: lane.tail,
      next: lane.next,
      last: lane.last,
      owner: lane.owner,
      q: lane.queued,
      cur:
        cur === undefined
          ? undefined
          : {
              pos: cur.position,
              seq: cur.seq,
              prev: cur.prev,
              ca: cur.attemptsMade,
              cf: JSON.stringify(cur.failures),
              from: cur.from,
              skip: cur.skipped === undefined ? undefined : JSON.stringify(cur.skipped),
              cd: cur.deliveries,
            },
      halt: lane.halt === undefined ? undefined : JSON.stringify(lane.halt),
      halted: lane.halted,
      retryAt: lane.retryAt,
      events: new Map(
        [...lane.events].map(([pos, e]) => [
          pos,
          name.startsWith('a|') ? `${e.seq}|${e.prev ?? ''}|${e.payload}` : e.payload,
        ]),
      ),
    });
  }
  return {
    now: state.now,
    ready: [...state.ready],
    leases: new Map(state.leases),
    taken: new Map([...state.taken].map(([w, lanes]) => [w, [...lanes]])),
    seq: state.seq,
    pending: state.pending,
    lanes,
  };
}

/** Attempt `attempt`'s failure, as a step records it. */
export function failure(attempt: number): AttemptFailureJson {
  return { attempt, at: new Date(0).toISOString(), error: `boom ${attempt}`, name: 'Error' };
}

let published = 0;

/** Publishes the way a transport does: through the adapter's event log, which hands ordered events to the lanes. */
export function publishThrough(log: EventLog): Harness['publish'] {
  return async (events) => {
    const result = await log.append(
      events.map((e) => ({
        id: `ordering-${++published}`,
        payload: e.payload,
        lane: e.lane,
        position: e.position,
        skipDedupe: e.republish,
      })),
    );
    return result.dropped;
  };
}

/**
 * A harness on the worker ordering store of a fresh bus on `adapter` (with
 * `config`, say short outbox timers for a short gap wait; its
 * own blocking connection on Redis), publishing through that bus's event
 * log; time passes for real. On Redis, `popOnly` stands in for a worker
 * crashing inside `waitAndClaim`, between its two calls.
 */
export function harnessOf(
  bed: ConformanceBed,
  adapter: ConformanceAdapter,
  config?: CommitbusOptions,
): Harness {
  const { transport, name } = bed.open(adapter, config);
  const worker = transport.workerOrdering();
  closing.push(worker);
  const { store } = worker;
  const P = queueNames({ prefix: bed.prefix, name }).ordering;
  return {
    store,
    publish: publishThrough(transport.log),
    snapshot: async (lanes, workers) => toSnapshot(await store.inspect(lanes, workers)),
    pass: (ms) => sleep(ms),
    ...(store instanceof RedisOrderingStore
      ? { popOnly: (w: string) => bed.redis.blmove(`${P}ready`, `${P}w:${w}`, 'RIGHT', 'LEFT', 0.01) }
      : {}),
  };
}

const closing: { close(): void | Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(closing.splice(0).map((w) => w.close()));
});
