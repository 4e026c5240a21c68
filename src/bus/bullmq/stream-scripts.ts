import { luaScripts } from './lua-scripts.js';

/** The stream log's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface StreamScripts {
  /** Publishes events (id, deliverAt or "", payload, lane or "", position or ""); resolves to [appended, delayed, dropped]. */
  commitbusPublishEvents(
    stream: string,
    delayed: string,
    seenPrefix: string,
    windowMs: number,
    orderingPrefix: string,
    ...perEvent: string[]
  ): Promise<[number, number, number]>;
  /** Moves due delayed events into the stream; resolves to how many. */
  commitbusReleaseDelayed(delayed: string, stream: string, limit: number): Promise<number>;
  /** Acknowledges and deletes entries; resolves to how many were deleted. */
  commitbusAckEvents(stream: string, group: string, ...entryIds: string[]): Promise<number>;
}

/**
 * The scripts, defined once per connection. Scripts rather than MULTI: an
 * ioredis MULTI builds a Pipeline that copies every script defined on the
 * connection (BullMQ defines about 64 on it), and at a few hundred publishes a
 * second those objects outlive young-generation GCs and show up as pauses in
 * the latency tail (measured with `npm run bench`).
 */
export const streamScripts = luaScripts<StreamScripts>({
  commitbusPublishEvents: { file: 'publish-events', keys: 2 },
  commitbusReleaseDelayed: { file: 'release-delayed', keys: 2 },
  commitbusAckEvents: { file: 'ack-events', keys: 1 },
});
