import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const lua = (name: string) => readFileSync(new URL(`./scripts/${name}.lua`, import.meta.url), 'utf8');
const APPEND_EVENTS = lua('append-events');
const ACK_EVENTS = lua('ack-events');

/** The stream log's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface StreamScripts {
  /** Appends payloads in order; resolves to how many. */
  commitbusAppendEvents(stream: string, ...payloads: string[]): Promise<number>;
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
    client.defineCommand('commitbusAppendEvents', { numberOfKeys: 1, lua: APPEND_EVENTS });
    client.defineCommand('commitbusAckEvents', { numberOfKeys: 1, lua: ACK_EVENTS });
    defined.add(client);
  }
  return client as Redis & StreamScripts;
}
