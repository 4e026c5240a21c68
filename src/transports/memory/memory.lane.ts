import type { SkippedRange } from '../../events/outgoing-event.js';
import type { LaneNumbering } from '../../ordering/errors/ordering-positions-mismatch.error.js';
import type { LaneRebase } from '../../ordering/lane-rebase.js';
import type { HaltReason, LaneEvent } from '../../ordering/ordering-store.js';

/** A lane's current event, as `cp`/`cs`/... in `ordered-steps.lua`. */
export interface Current {
  position: number;
  seq: number;
  prev: number | undefined;
  attemptsMade: number;
  failures: LaneEvent['failures'];
  from: number;
  skipped: HaltReason | undefined;
  /** Hand-outs since its last recorded step, as `cd` in `ordered-steps.lua`. */
  deliveries: number;
}

/** One lane, as `l:<lane>` and `e:<lane>` in `ordered-steps.lua`. */
export interface Lane {
  tail: number;
  /** Who numbers a sync lane's events, set by its first (`pn` in `publish-events.lua`). */
  numbering: LaneNumbering | undefined;
  next: number;
  last: number | undefined;
  owner: string | undefined;
  queued: boolean;
  current: Current | undefined;
  halt: { why: HaltReason; at: number } | undefined;
  retryAt: number | undefined;
  /** The missing position a sync lane waits for while later ones wait, and since when (`gp`/`gs`). */
  gap: { position: number; since: number } | undefined;
  /** Its last re-base (`rbf`/`rbt`/`rbw`/`rba`). */
  rebase: LaneRebase | undefined;
  /** The positions its re-bases skipped, oldest first (`sk`, see `includes/lane-skipped.lua`). */
  readonly skipped: SkippedRange[];
  /** Position to payload; on async lanes with the source event's seq and prev. */
  readonly events: Map<number, { payload: string; seq?: number; prev?: number | undefined }>;
}

/** A lane that never held anything. */
export function emptyLane(): Lane {
  return {
    tail: 0,
    numbering: undefined,
    next: 1,
    last: undefined,
    owner: undefined,
    queued: false,
    current: undefined,
    halt: undefined,
    retryAt: undefined,
    gap: undefined,
    rebase: undefined,
    skipped: [],
    events: new Map(),
  };
}
