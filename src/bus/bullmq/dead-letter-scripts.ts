import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const lua = (name: string) => readFileSync(new URL(`./scripts/${name}.lua`, import.meta.url), 'utf8');
const ADD_DEAD_LETTERS = lua('add-dead-letters');
const REMOVE_DEAD_LETTERS = lua('remove-dead-letters');

/** The dead-letter store's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface DeadLetterScripts {
  /** Stores letters as (id, deadAt ms, JSON) triples; resolves to how many were new. */
  commitbusAddDeadLetters(hash: string, byTime: string, ...triples: (string | number)[]): Promise<number>;
  /** Removes letters given as (id, deadAt ms or '') pairs; resolves to how many were removed. */
  commitbusRemoveDeadLetters(hash: string, byTime: string, ...pairs: (string | number)[]): Promise<number>;
}

const defined = new WeakSet<Redis>();

/** The scripts, defined once per connection. */
export function deadLetterScripts(client: Redis): Redis & DeadLetterScripts {
  if (!defined.has(client)) {
    client.defineCommand('commitbusAddDeadLetters', { numberOfKeys: 2, lua: ADD_DEAD_LETTERS });
    client.defineCommand('commitbusRemoveDeadLetters', { numberOfKeys: 2, lua: REMOVE_DEAD_LETTERS });
    defined.add(client);
  }
  return client as Redis & DeadLetterScripts;
}
