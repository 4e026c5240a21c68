/**
 * The base of the invariants model (see invariants-model.ts): what it knows of
 * lanes and simulated workers, how it calls the store and reads the state, and
 * the checks after every operation: of an event handed out, of how the state
 * may change, and of the state itself (the invariants of
 * `src/transports/redis/scripts/ordered-steps.lua`).
 */
import type { LaneEvent } from '../../src/ordering/ordering-store.js';
import {
  type Harness,
  type LaneState,
  laneState,
  type Snapshot,
} from '../conformance/ordering-store/harness.js';
import {
  type Expected,
  ensure,
  InvariantError,
  payloadOf,
  type Rng,
  type Sim,
  type Track,
} from './invariants-model.js';

/** What the model knows and checks; the operations that drive it are its subclasses'. */
export abstract class ModelState {
  /** The lanes, by name. */
  protected readonly tracks = new Map<string, Track>();
  /** Every simulated worker ever started, by id. */
  protected readonly sims = new Map<string, Sim>();
  /** The state read after the last store call. */
  protected state!: Snapshot;
  /** The highest seq of a sync lane event handed out so far (invariant 4: it grows). */
  private maxSeq = 0;
  /** Lane events handed out so far (progress, with the completed ones). */
  protected handouts = 0;
  /** Every operation and reply, for the failure message. */
  protected readonly trace: string[] = [];

  /** A model driving the adapter of `h`, its choices drawn from `rng`. */
  constructor(
    protected readonly h: Harness,
    protected readonly rng: Rng,
  ) {}

  /** The last operations, for the failure message. */
  recent(): string {
    return this.trace.slice(-25).join('\n');
  }

  /** What the model knows of `lane` (an unknown lane is a bug of the model). */
  protected track(lane: string): Track {
    const t = this.tracks.get(lane);
    if (t === undefined) throw new InvariantError(`unknown lane ${lane}`);
    return t;
  }

  /** Reads the state of every lane and worker the model knows. */
  protected snap(): Promise<Snapshot> {
    return this.h.snapshot(this.tracks.keys(), this.sims.keys());
  }

  /** The workers that act now. */
  protected live(): Sim[] {
    return [...this.sims.values()].filter((s) => s.state === 'live');
  }

  /** Runs one store call and reads the state after it. */
  protected async act<T>(label: string, call: () => Promise<T>): Promise<[T, Snapshot, Snapshot]> {
    this.trace.push(label);
    const pre = this.state;
    const result = await call();
    this.trace.push(`  -> ${JSON.stringify(result)}`);
    const post = await this.snap();
    this.state = post;
    return [result, pre, post];
  }

  // --- checks ---------------------------------------------------------------------------------------------

  /** A lane event `sim` claimed (take, waitAndClaim): never from another owner whose lease is live. */
  protected claimed(sim: Sim, event: LaneEvent, pre: Snapshot, post: Snapshot): void {
    const before = laneState(pre, event.lane);
    const owner = before.owner;
    // Its lease outlasting the snapshot after the claim means it was live during the claim.
    ensure(
      owner === undefined || owner === sim.id || !((post.leases.get(owner) ?? 0) > post.now),
      `${event.lane}: claimed by ${sim.id} from ${owner}, whose lease is live (invariant 2)`,
    );
    this.handed(sim, event, before.next, post);
  }

  /** A lane event handed to `sim`: at `expectedPos`, and the lane's current event, never another one. */
  protected handed(sim: Sim, event: LaneEvent, expectedPos: number, post: Snapshot): void {
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
  protected verify(pre: Snapshot, post: Snapshot, doneLanes: Set<string>): void {
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

  /** The invariants of the state `s`, lane by lane, and its pending counter. */
  private checkState(s: Snapshot): void {
    let pending = 0;
    for (const [lane, l] of s.lanes) {
      pending += l.events.size;
      const at = () => ({
        lane,
        ...l,
        events: [...l.events],
        ready: s.ready,
        taken: [...s.taken],
        leases: [...s.leases],
      });
      this.checkLaneEvents(s, lane, l, at);
      this.checkLaneCover(s, lane, l, at);
    }
    ensure(s.pending === pending, `pending counter ${s.pending}, ${pending} events in lanes`);
  }

  /** A lane's events and its current event, against the model (invariants 4 and 5); `at` is for the failure. */
  private checkLaneEvents(s: Snapshot, lane: string, l: LaneState, at: () => unknown): void {
    const t = this.track(lane);
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
        ensure(l.cur.prev === l.last, `${lane}: current prev is not the last handled seq (invariant 4)`, at);
        ensure(
          l.cur.prev === undefined || l.cur.seq > l.cur.prev,
          `${lane}: seq not past prev (invariant 4)`,
          at,
        );
      }
    }
  }

  /**
   * Who holds a lane, and that an event at its next position is covered by someone (invariants 1 and 2);
   * `at` is for the failure.
   */
  private checkLaneCover(s: Snapshot, lane: string, l: LaneState, at: () => unknown): void {
    const registered = (w: string) => s.leases.has(w);
    const heldBy = (lane: string) =>
      [...s.taken].filter(([w, lanes]) => registered(w) && lanes.includes(lane)).map(([w]) => w);
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
}
