import { luaScripts } from './lua-scripts.js';

/** The dead-letter store's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface DeadLetterScripts {
  /** Stores letters as (id, deadAt ms, JSON) triples; resolves to how many were new. */
  commitbusAddDeadLetters(hash: string, byTime: string, ...triples: (string | number)[]): Promise<number>;
  /** Removes letters given as (id, deadAt ms or '') pairs; resolves to how many were removed. */
  commitbusRemoveDeadLetters(hash: string, byTime: string, ...pairs: (string | number)[]): Promise<number>;
}

/** The scripts, defined once per connection. */
export const deadLetterScripts = luaScripts<DeadLetterScripts>({
  commitbusAddDeadLetters: { file: 'add-dead-letters', keys: 2 },
  commitbusRemoveDeadLetters: { file: 'remove-dead-letters', keys: 2 },
});
