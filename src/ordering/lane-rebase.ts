import type { OutboxOptions } from '../config/option-groups.js';

/**
 * Why a sync lane was re-based: `no-state`, its state was gone (Redis lost
 * its data) while events waited at later positions; `gap`, a position never
 * came; `operator`, `bus.ordering.rebase(key)`.
 */
export type RebaseWhy = 'no-state' | 'gap' | 'operator';

/** A lane's last re-base, as the store records it. */
export interface LaneRebase {
  /** The lane (`s|<key>`). */
  readonly lane: string;
  /** The position it waited for. */
  readonly from: number;
  /** The position it went on from. */
  readonly to: number;
  /** Why. */
  readonly why: RebaseWhy;
  /** When (epoch ms, the store's clock). */
  readonly at: number;
}

/** The re-bases a store recorded: how many ever, and the newest lanes' last ones, newest first. */
export interface RebaseLog {
  /** Re-bases since the store's count began (it only grows). */
  readonly count: number;
  /** The newest, at most as many as asked for. */
  readonly recent: readonly LaneRebase[];
}

/**
 * What `OrderingStore.rebase` did: `ok`, or why it did nothing: `busy` (the
 * lane has a current event at `position`), `empty` (no position given and
 * none held), `above` (the position given is above `first`, an event the lane
 * holds, which would never run), `below` (the position given is below the
 * lane's `next`: positions handled already, whose republished copies would
 * run again), `beyond` (on a lane the store numbers, the position given is
 * past `next`, the position its next event gets: those before would be dropped),
 * `unknown` (the lane has no state and holds nothing: a key never seen, or
 * whose state Redis lost; its first event sets its numbering).
 */
export type RebaseReply =
  | { readonly status: 'ok'; readonly from: number; readonly to: number }
  | { readonly status: 'busy'; readonly position: number }
  | { readonly status: 'empty' }
  | { readonly status: 'above'; readonly first: number }
  | { readonly status: 'below'; readonly next: number }
  | { readonly status: 'beyond'; readonly next: number }
  | { readonly status: 'unknown' };

/**
 * How long a sync lane waits for a missing position while later ones wait,
 * before it re-bases to the first it holds: twice the time within which a
 * live outbox relay republishes a row its publisher left
 * (`2 × (outbox.graceMs + outbox.relayEveryMs)`, 12 s by default).
 */
export function laneGapWaitMs(outbox: Pick<OutboxOptions, 'graceMs' | 'relayEveryMs'>): number {
  return 2 * (outbox.graceMs + outbox.relayEveryMs);
}
