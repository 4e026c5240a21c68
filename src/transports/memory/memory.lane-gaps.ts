import type { SkippedRange } from '../../events/outgoing-event.js';
import type { LaneRebase, RebaseLog, RebaseReply, RebaseWhy } from '../../ordering/lane-rebase.js';
import type { Lane } from './memory.lane.js';

/** How many lanes' last re-bases are kept, newest first (`P rebased` in `ordered-steps.lua`). */
const KEPT = 1_000;

/** How many skipped ranges a lane keeps before its two oldest merge (`SKIPPED_KEPT` in `lane-skipped.lua`). */
const SKIPPED_KEPT = 32;

/**
 * The gaps and re-bases of the memory lanes: a TypeScript copy of `gap()` in
 * `ordered-steps.lua` and of `ordered-rebase.lua`, with `P gaps`, `P rebased`
 * and `P rebases`.
 */
export class MemoryLaneGaps {
  /** Sync lane to when its wait for a missing position ends. */
  private readonly waits = new Map<string, number>();
  /** Lanes by their last re-base, oldest first. */
  private readonly recent = new Map<string, LaneRebase>();
  private count = 0;

  /** @param waitMs - how long a missing position is waited for (0: for ever). */
  constructor(private readonly waitMs: number) {}

  /**
   * No event at `lane.next` of the lane `name`: starts or goes on with its
   * wait, and re-bases it once over. Resolves to the position it re-based to
   * and why, or `undefined` (the lane waits, or holds nothing).
   */
  missing(name: string, lane: Lane, now: number): { to: number; why: RebaseWhy } | undefined {
    if (this.waitMs <= 0 || name.startsWith('a|') || lane.events.size === 0) return undefined;
    const position = lane.next;
    if (lane.gap?.position !== position) lane.gap = { position, since: now };
    const until = lane.gap.since + this.waitMs;
    if (now < until) {
      this.waits.set(name, until);
      return undefined;
    }
    let first: number | undefined;
    for (const held of lane.events.keys())
      if (held > position && (first === undefined || held < first)) first = held;
    if (first === undefined) return undefined;
    // No position handled here yet, at position 1: the lane's state is gone (or the key's first event never came).
    const why: RebaseWhy =
      position === 1 && lane.last === undefined && lane.rebase === undefined ? 'no-state' : 'gap';
    this.record(name, lane, { lane: name, from: position, to: first, why, at: now });
    return { to: first, why };
  }

  /** The event at `lane.next` is there: a wait for it ends. */
  arrived(name: string, lane: Lane): void {
    if (lane.gap === undefined) return;
    lane.gap = undefined;
    this.waits.delete(name);
  }

  /** Takes the lanes whose wait is over by `now`, for the upkeep to queue. */
  due(now: number): string[] {
    const out: string[] = [];
    for (const [name, until] of this.waits) {
      if (until > now) continue;
      this.waits.delete(name);
      out.push(name);
    }
    return out;
  }

  /** An operator's re-base of the lane `name` (see `ordered-rebase.lua`). */
  rebase(name: string, lane: Lane, position: number | undefined, now: number): RebaseReply {
    if (lane.current !== undefined) return { status: 'busy', position: lane.current.position };
    let first: number | undefined;
    for (const held of lane.events.keys()) if (first === undefined || held < first) first = held;
    const stateless = lane.numbering === undefined && lane.last === undefined && lane.rebase === undefined;
    if (first === undefined && stateless) return { status: 'unknown' };
    const to = position ?? first;
    if (to === undefined) return { status: 'empty' };
    if (first !== undefined && to > first) return { status: 'above', first };
    const from = lane.next;
    if (to < from) return { status: 'below', next: from };
    if (lane.numbering === 'transport' && to > lane.tail + 1)
      return { status: 'beyond', next: lane.tail + 1 };
    this.record(name, lane, { lane: name, from, to, why: 'operator', at: now });
    return { status: 'ok', from, to };
  }

  /**
   * The re-base that skipped `position` of `lane`, or `undefined` (see
   * `skippedAt` in `includes/lane-skipped.lua`): an event for it that comes
   * now is late, not a copy of one handled.
   */
  skippedAt(lane: Lane, position: number): SkippedRange | undefined {
    return lane.skipped.find((range) => position >= range.from && position < range.to);
  }

  /** The count of re-bases and the newest `limit` lanes' last ones. */
  log(limit: number): RebaseLog {
    return { count: this.count, recent: [...this.recent.values()].reverse().slice(0, Math.max(0, limit)) };
  }

  private record(name: string, lane: Lane, rebase: LaneRebase): void {
    if (rebase.to > rebase.from) {
      const { from, to, why, at } = rebase;
      lane.skipped.push({ from, to, why, at });
      // Past the bound the two oldest merge: a position between them reads as skipped too, never as handled.
      if (lane.skipped.length > SKIPPED_KEPT) {
        const [oldest, newer] = lane.skipped.splice(0, 2) as [SkippedRange, SkippedRange];
        lane.skipped.unshift({ ...newer, from: oldest.from });
      }
    }
    lane.next = rebase.to;
    lane.gap = undefined;
    lane.rebase = rebase;
    this.waits.delete(name);
    this.recent.delete(name);
    this.recent.set(name, rebase);
    if (this.recent.size > KEPT) this.recent.delete(this.recent.keys().next().value as string);
    this.count++;
  }
}
