/**
 * The keys of the ordered lanes under one ordering prefix (`QueueNames.ordering`,
 * which starts with the bus's hash tag); `ordered-steps.lua` describes what each
 * holds. Scripts get them as KEYS; the only ones a script builds itself, from
 * the same prefix, are those of lanes it finds while running (see the headers).
 */
export interface LaneKeys {
  /** The ordering prefix the lane and worker keys start with. */
  readonly prefix: string;
  /** List of lanes that may have work. */
  readonly ready: string;
  /** Sorted set: worker id to lease expiry (ms). */
  readonly workers: string;
  /** Sorted set: lane to when its current event runs again (ms). */
  readonly retry: string;
  /** Sorted set: lane to when it halted (ms). */
  readonly halted: string;
  /** The bus's sequence counter. */
  readonly seq: string;
  /** Count of events waiting in lanes. */
  readonly pending: string;
  /** Sorted set: sync lane to when its wait for a missing position ends (ms). */
  readonly gaps: string;
  /** Sorted set: lane to when it was last re-based (ms), the newest 1000. */
  readonly rebased: string;
  /** Count of re-bases. */
  readonly rebases: string;
  /** The list of lanes a worker took from `ready`. */
  worker(id: string): string;
  /** A lane's state hash. */
  lane(lane: string): string;
  /** A lane's events hash (position to payload). */
  events(lane: string): string;
}

/** The lane keys under `prefix`. */
export function laneKeys(prefix: string): LaneKeys {
  return {
    prefix,
    ready: `${prefix}ready`,
    workers: `${prefix}workers`,
    retry: `${prefix}retry`,
    halted: `${prefix}halted`,
    seq: `${prefix}seq`,
    pending: `${prefix}pending`,
    gaps: `${prefix}gaps`,
    rebased: `${prefix}rebased`,
    rebases: `${prefix}rebases`,
    worker: (id) => `${prefix}w:${id}`,
    lane: (lane) => `${prefix}l:${lane}`,
    events: (lane) => `${prefix}e:${lane}`,
  };
}
