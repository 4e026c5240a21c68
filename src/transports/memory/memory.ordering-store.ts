import type { OutgoingEvent, SkippedRange } from '../../events/outgoing-event.js';
import {
  type LaneNumbering,
  OrderingPositionsMismatchError,
} from '../../ordering/errors/ordering-positions-mismatch.error.js';
import type { RebaseLog, RebaseReply } from '../../ordering/lane-rebase.js';
import type { LaneState, OrderingState } from '../../ordering/ordering-state.js';
import type {
  HaltedLane,
  LaneEvent,
  LaneStatus,
  LaneStep,
  OrderingStore,
  StepReply,
} from '../../ordering/ordering-store.js';
import { emptyLane, type Lane } from './memory.lane.js';
import { MemoryLaneGaps } from './memory.lane-gaps.js';
import { Wakeups } from './wakeups.js';

function numberingOf(position: number | undefined): LaneNumbering {
  return position === undefined ? 'transport' : 'outbox';
}

/**
 * `OrderingStore` in this process's memory, with the semantics of the
 * Redis scripts (`ordered-steps.lua`): each method runs without awaiting, so
 * it is atomic here.
 */
export class MemoryOrderingStore implements OrderingStore {
  private readonly lanes = new Map<string, Lane>();
  private readonly ready: string[] = [];
  private readonly taken = new Map<string, string[]>();
  private readonly leases = new Map<string, number>();
  private readonly wakeups = new Wakeups();
  private seq = 0;
  private pendingCount = 0;
  private readonly gaps: MemoryLaneGaps;

  /**
   * @param onChange - called whenever events are added or finished.
   * @param gapWaitMs - how long a sync lane waits for a missing position before it re-bases (`laneGapWaitMs`); 0: for ever.
   */
  constructor(
    private readonly onChange: () => void = () => {},
    gapWaitMs = 0,
  ) {
    this.gaps = new MemoryLaneGaps(gapWaitMs);
  }

  private lane(name: string): Lane {
    let lane = this.lanes.get(name);
    if (lane === undefined) {
      lane = emptyLane();
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /**
   * Throws {@link OrderingPositionsMismatchError} if an ordered event of
   * `events` numbers its lane otherwise than the lane (or an event before it)
   * does, as `publish-events.lua` refuses the batch; changes nothing.
   */
  checkNumbering(events: readonly OutgoingEvent[]): void {
    const seen = new Map<string, LaneNumbering>();
    for (const { lane, position } of events) {
      if (lane === undefined) continue;
      const known = seen.get(lane) ?? this.lanes.get(lane)?.numbering;
      const mine = numberingOf(position);
      if (known !== undefined && known !== mine) throw new OrderingPositionsMismatchError(lane, known);
      seen.set(lane, mine);
    }
  }

  /**
   * Adds a published ordered event to its sync lane at `position` (or the
   * lane's next); resolves to false for a position already handled or present,
   * to the re-base that skipped it for a position the lane went past (late: not
   * taken). Call {@link MemoryOrderingStore.checkNumbering} on its batch first.
   */
  append(laneName: string, payload: string, position: number | undefined): boolean | SkippedRange {
    const lane = this.lane(laneName);
    lane.numbering ??= numberingOf(position);
    const pos = position ?? ++lane.tail;
    if (pos < lane.next) return this.gaps.skippedAt(lane, pos) ?? false;
    if (lane.events.has(pos)) return false;
    lane.events.set(pos, { payload });
    this.pendingCount++;
    this.enqueue(laneName, lane);
    this.onChange();
    return true;
  }

  private enqueue(name: string, lane: Lane): void {
    if (lane.queued) return;
    lane.queued = true;
    this.ready.unshift(name);
    this.wakeups.wakeAll();
  }

  private alive(worker: string): boolean {
    return (this.leases.get(worker) ?? 0) > Date.now();
  }

  private mine(worker: string): string[] {
    let list = this.taken.get(worker);
    if (list === undefined) {
      list = [];
      this.taken.set(worker, list);
    }
    return list;
  }

  private letGo(worker: string, name: string, lane: Lane): void {
    lane.owner = undefined;
    const list = this.mine(worker);
    const index = list.indexOf(name);
    if (index >= 0) list.splice(index, 1);
  }

  private head(worker: string, name: string, lane: Lane): LaneEvent | 'empty' {
    let cur = lane.current;
    if (cur !== undefined && lane.events.has(cur.position)) {
      // Handed out again: after a retry or a resume (0), or taken over from an owner that died mid-event.
      cur.deliveries++;
    } else {
      const from = lane.next;
      const rebased = lane.events.has(from) ? undefined : this.gaps.missing(name, lane, Date.now());
      const stored = lane.events.get(lane.next);
      if (stored === undefined) {
        lane.current = undefined;
        this.letGo(worker, name, lane);
        return 'empty';
      }
      if (rebased === undefined) this.gaps.arrived(name, lane);
      const isAsync = name.startsWith('a|');
      cur = {
        position: lane.next,
        seq: isAsync ? (stored.seq as number) : ++this.seq,
        prev: isAsync ? stored.prev : lane.last,
        attemptsMade: 0,
        failures: [],
        from: 0,
        skipped: undefined,
        deliveries: 1,
      };
      lane.current = cur;
      if (rebased !== undefined) {
        const event = lane.events.get(cur.position) as { payload: string };
        return { lane: name, ...cur, payload: event.payload, rebased: { from, why: rebased.why } };
      }
    }
    const stored = lane.events.get(cur.position) as { payload: string };
    return { lane: name, ...cur, payload: stored.payload };
  }

  private claim(worker: string, name: string): LaneEvent | LaneStatus {
    const lane = this.lane(name);
    lane.queued = false;
    if (lane.owner !== undefined && (lane.owner === worker || this.alive(lane.owner))) {
      const list = this.mine(worker);
      const index = list.indexOf(name);
      if (index >= 0) list.splice(index, 1);
      return 'owned';
    }
    if (lane.halt !== undefined) {
      this.letGo(worker, name, lane);
      return 'halted';
    }
    if (lane.retryAt !== undefined) {
      if (lane.retryAt > Date.now()) {
        this.letGo(worker, name, lane);
        return 'waiting';
      }
      lane.retryAt = undefined;
    }
    lane.owner = worker;
    return this.head(worker, name, lane);
  }

  async take(worker: string, max: number): Promise<LaneEvent[]> {
    const out: LaneEvent[] = [];
    // Only under a live lease: a lane must never be owned by a worker the lease sweep no longer knows.
    for (let i = 0; i < max && this.alive(worker); i++) {
      const name = this.ready.pop();
      if (name === undefined) break;
      this.mine(worker).unshift(name);
      const reply = this.claim(worker, name);
      if (typeof reply !== 'string') out.push(reply);
    }
    return out;
  }

  async waitAndClaim(worker: string, blockMs: number): Promise<LaneEvent | undefined> {
    // Without a lease it takes nothing: wait as if idle rather than spin until it renews.
    if (this.ready.length === 0 || !this.alive(worker)) await this.wakeups.wait(blockMs);
    const [event] = await this.take(worker, 1);
    return event;
  }

  async steps(worker: string, steps: readonly LaneStep[]): Promise<StepReply[]> {
    const replies = steps.map((step) => this.step(worker, step));
    this.onChange();
    return replies;
  }

  private step(worker: string, step: LaneStep): StepReply {
    const lane = this.lane(step.lane);
    if (step.op === 'release') {
      if (lane.owner === worker) {
        // Handed back unrun: this hand-out was no delivery.
        if (lane.current !== undefined && lane.current.deliveries > 0) lane.current.deliveries--;
        this.letGo(worker, step.lane, lane);
        this.enqueue(step.lane, lane);
      }
      return 'ok';
    }
    const cur = lane.current;
    if (lane.owner !== worker || cur === undefined || cur.position !== step.position) return 'lost';
    switch (step.op) {
      case 'done': {
        const stored = lane.events.get(cur.position);
        lane.events.delete(cur.position);
        this.pendingCount--;
        lane.next = cur.position + 1;
        lane.last = cur.seq;
        lane.current = undefined;
        if (stored !== undefined) {
          for (const name of step.fanOut) {
            const target = this.lane(name);
            target.events.set(++target.tail, { payload: stored.payload, seq: cur.seq, prev: cur.prev });
            this.pendingCount++;
            this.enqueue(name, target);
          }
        }
        return this.head(worker, step.lane, lane);
      }
      case 'later':
      case 'halt':
        // The current event stays, with its attempts so far, until the retry is due or an operator resumes it.
        lane.current = {
          ...cur,
          attemptsMade: step.attemptsMade,
          failures: step.failures,
          from: step.from,
          skipped: undefined,
          deliveries: 0,
        };
        if (step.op === 'later') lane.retryAt = Date.now() + step.delayMs;
        else lane.halt = { why: step.why, at: Date.now() };
        this.letGo(worker, step.lane, lane);
        return 'ok';
    }
  }

  async maintain(worker: string, leaseMs: number): Promise<void> {
    const now = Date.now();
    this.leases.set(worker, now + leaseMs);
    for (const [dead, until] of this.leases) {
      if (until > now) continue;
      for (const name of this.taken.get(dead) ?? []) {
        const lane = this.lane(name);
        if (lane.owner === dead) lane.owner = undefined;
        lane.queued = false;
        this.enqueue(name, lane);
      }
      this.taken.delete(dead);
      this.leases.delete(dead);
    }
    for (const [name, lane] of this.lanes) {
      if (lane.retryAt !== undefined && lane.retryAt <= now) {
        lane.retryAt = undefined;
        this.enqueue(name, lane);
      }
    }
    for (const name of this.gaps.due(now)) this.enqueue(name, this.lane(name));
  }

  async leave(worker: string): Promise<void> {
    for (const name of this.taken.get(worker) ?? []) {
      const lane = this.lane(name);
      if (lane.owner === worker) lane.owner = undefined;
      lane.queued = false;
      this.enqueue(name, lane);
    }
    this.taken.delete(worker);
    this.leases.set(worker, 0);
  }

  async halted(): Promise<HaltedLane[]> {
    const out: HaltedLane[] = [];
    for (const [name, lane] of this.lanes) {
      if (lane.halt === undefined || lane.current === undefined) continue;
      const stored = lane.events.get(lane.current.position);
      out.push({
        lane: name,
        haltedAt: new Date(lane.halt.at),
        why: lane.halt.why,
        waiting: lane.events.size,
        event: { lane: name, ...lane.current, payload: stored?.payload ?? '' },
      });
    }
    return out.sort((a, b) => a.haltedAt.getTime() - b.haltedAt.getTime());
  }

  async resume(mode: 'redrive' | 'skip', lanes: readonly string[]): Promise<number> {
    let resumed = 0;
    for (const name of lanes) {
      const lane = this.lanes.get(name);
      if (lane?.halt === undefined || lane.current === undefined) continue;
      lane.current =
        mode === 'skip'
          ? { ...lane.current, skipped: lane.halt.why, deliveries: 0 }
          : { ...lane.current, attemptsMade: 0, failures: [], deliveries: 0 };
      lane.halt = undefined;
      this.enqueue(name, lane);
      resumed++;
    }
    return resumed;
  }

  async rebase(name: string, position?: number): Promise<RebaseReply> {
    const lane = this.lane(name);
    const reply = this.gaps.rebase(name, lane, position, Date.now());
    if (reply.status === 'ok' && lane.events.size > 0) this.enqueue(name, lane);
    return reply;
  }

  async rebased(limit: number): Promise<RebaseLog> {
    return this.gaps.log(limit);
  }

  async pending(): Promise<number> {
    return this.pendingCount;
  }

  async pendingInHalted(): Promise<number> {
    let sum = 0;
    for (const lane of this.lanes.values()) if (lane.halt !== undefined) sum += lane.events.size;
    return sum;
  }

  async inspect(lanes: Iterable<string>, workers: Iterable<string>): Promise<OrderingState> {
    const states = new Map<string, LaneState>();
    for (const name of lanes) {
      const lane = this.lanes.get(name);
      states.set(name, {
        tail: lane?.tail ?? 0,
        next: lane?.next ?? 1,
        last: lane?.last,
        owner: lane?.owner,
        queued: lane?.queued ?? false,
        current: lane?.current === undefined ? undefined : { ...lane.current },
        halt: lane?.halt?.why,
        halted: lane?.halt !== undefined,
        retryAt: lane?.retryAt,
        events: new Map([...(lane?.events ?? [])].map(([pos, stored]) => [pos, { ...stored }])),
      });
    }
    return {
      now: Date.now(),
      ready: [...this.ready],
      leases: new Map(this.leases),
      taken: new Map([...workers].map((w) => [w, [...(this.taken.get(w) ?? [])]])),
      seq: this.seq,
      pending: this.pendingCount,
      lanes: states,
    };
  }

  interrupt(): void {
    this.wakeups.wakeAll();
  }
}
