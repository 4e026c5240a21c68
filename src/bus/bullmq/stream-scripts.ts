import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const lua = (name: string) => readFileSync(new URL(`./scripts/${name}.lua`, import.meta.url), 'utf8');
const PUBLISH_EVENTS = lua('publish-events');
const RELEASE_DELAYED = lua('release-delayed');
const ACK_EVENTS = lua('ack-events');

/** The stream log's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface StreamScripts {
  /** Publishes events (id, deliverAt or "", payload triples); resolves to [appended, delayed, dropped]. */
  commitbusPublishEvents(
    stream: string,
    delayed: string,
    seenPrefix: string,
    windowMs: number,
    ...triples: string[]
  ): Promise<[number, number, number]>;
  /** Moves due delayed events into the stream; resolves to how many. */
  commitbusReleaseDelayed(delayed: string, stream: string, limit: number): Promise<number>;
  /** Acknowledges and deletes entries; resolves to how many were deleted. */
  commitbusAckEvents(stream: string, group: string, ...entryIds: string[]): Promise<number>;
}

const defined = new WeakSet<Redis>();

/**
 * The scripts, defined once per connection. Scripts rather than MULTI: an
 * ioredis MULTI builds a Pipeline that copies every script defined on the
 * connection (BullMQ defines about 64 on it), and at a few hundred publishes a
 * second those objects outlive young-generation GCs and show up as pauses in
 * the latency tail (measured with `npm run bench`).
 */
export function streamScripts(client: Redis): Redis & StreamScripts {
  if (!defined.has(client)) {
    client.defineCommand('commitbusPublishEvents', { numberOfKeys: 2, lua: PUBLISH_EVENTS });
    client.defineCommand('commitbusReleaseDelayed', { numberOfKeys: 2, lua: RELEASE_DELAYED });
    client.defineCommand('commitbusAckEvents', { numberOfKeys: 1, lua: ACK_EVENTS });
    defined.add(client);
  }
  return client as Redis & StreamScripts;
}
