import { luaScripts } from './lua-scripts.js';

/** The dead-letter store's writes, one atomic round trip each (see the `.lua` files for KEYS/ARGV). */
export interface DeadLetterScripts {
  /**
   * Stores letters as (id, deadAt ms, group, JSON) quadruples after the retention (max count or 0,
   * cutoff ms or ''); resolves to how many letters the retention dropped.
   */
  commitbusAddDeadLetters(...keysThenArgs: (string | number)[]): Promise<number>;
  /** Removes letters given as (id, deadAt ms or '') pairs; resolves to how many were removed. */
  commitbusRemoveDeadLetters(...keysThenPairs: (string | number)[]): Promise<number>;
}

/** The scripts, defined once per connection. */
export const deadLetterScripts = luaScripts<DeadLetterScripts>({
  commitbusAddDeadLetters: { file: 'add-dead-letters', keys: 5, includes: ['dead-letter-counts'] },
  commitbusRemoveDeadLetters: { file: 'remove-dead-letters', keys: 4, includes: ['dead-letter-counts'] },
});
