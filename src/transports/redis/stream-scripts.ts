import { luaScripts } from './lua-scripts.js';

/**
 * An ordered event that came late, as `publish-events.lua` answers it: its
 * index in the batch, its position, and the re-base that skipped it.
 */
export type LateReply = [index: number, position: number, from: number, to: number, why: string, at: string];

/** The stream log's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface StreamScripts {
  /**
   * Publishes events; resolves to [appended, delayed, dropped, late] (late:
   * the ordered events that came for a position a re-base skipped), or to
   * [0, 0, 0, lane, its numbering 'g' or 'l'] when an ordered event numbers
   * its lane the other way (nothing written). `keyCount`
   * keys come first (stream, delayed, lanes' pending and ready, then each
   * event's seen-id and lane keys), then the window and five arguments per
   * event (see `publish-events.lua`).
   */
  commitbusPublishEvents(
    keyCount: number,
    ...keysAndArgs: (string | number)[]
  ): Promise<[number, number, number, LateReply[]] | [0, 0, 0, lane: string, numbering: 'g' | 'l']>;
  /** Moves due delayed events into the stream; resolves to how many. */
  commitbusReleaseDelayed(delayed: string, stream: string, limit: number): Promise<number>;
  /** Acknowledges and deletes entries; resolves to how many were deleted. */
  commitbusAckEvents(stream: string, group: string, ...entryIds: string[]): Promise<number>;
  /**
   * Takes over one entry idle for `minIdleMs`; resolves to its id, its
   * delivery count (this one included) and its fields, or null.
   */
  commitbusClaimStaleEvent(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    maxLooks: number,
  ): Promise<[id: string, deliveries: number, fields: string[]] | null>;
}

/**
 * The scripts, defined once per connection. Scripts rather than MULTI: an
 * ioredis MULTI builds a Pipeline that copies every script defined on the
 * connection (BullMQ defines about 64 on it), and at a few hundred publishes a
 * second those objects outlive young-generation GCs and show up as pauses in
 * the latency tail (measured with `npm run bench`).
 */
export const streamScripts = luaScripts<StreamScripts>({
  commitbusPublishEvents: { file: 'publish-events', keys: 'counted', includes: ['lane-skipped'] },
  commitbusReleaseDelayed: { file: 'release-delayed', keys: 2 },
  commitbusAckEvents: { file: 'ack-events', keys: 1 },
  commitbusClaimStaleEvent: { file: 'claim-stale-event', keys: 1 },
});
