/**
 * Lanes: the queues of one order key's work. The sync lane `s|<key>` runs an
 * event's sync handlers and then hands the event to one async lane
 * `a|<handler>|<key>` per async handler, so each async handler also sees the
 * key's events in order, without waiting for the others.
 */

/** The lane of a key's sync handlers. */
export function syncLane(key: string): string {
  return `s|${key}`;
}

/** The lane of one async handler for a key (handler names have no `|`). */
export function asyncLane(handler: string, key: string): string {
  return `a|${handler}|${key}`;
}

/** What a lane is for. */
export interface LaneOf {
  /** The order key. */
  readonly key: string;
  /** The async handler, for an async lane. */
  readonly handler?: string;
}

/** Splits a lane name. */
export function parseLane(lane: string): LaneOf {
  if (lane.startsWith('s|')) return { key: lane.slice(2) };
  const bar = lane.indexOf('|', 2);
  return { handler: lane.slice(2, bar), key: lane.slice(bar + 1) };
}
