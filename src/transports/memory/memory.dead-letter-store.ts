import type { DeadLetter } from '../../dead-letters/dead-letter.js';
import { decodeDeadLetter, encodeDeadLetter, readLetter } from '../../dead-letters/dead-letter-codec.js';
import {
  type DeadLetterFilter,
  type DeadLetterStore,
  type DeadLetterVersion,
  matchesDeadLetterFilter,
} from '../../dead-letters/dead-letter-store.js';
import type { CorruptDeadLetterError } from '../../dead-letters/errors/corrupt-dead-letter.error.js';

interface Stored {
  readonly json: string;
  readonly deadAt: number;
  readonly seq: number;
}

/**
 * `DeadLetterStore` in this process's memory, with the Redis store's
 * semantics: letters are stored encoded, so what comes back is a copy.
 */
export class MemoryDeadLetterStore implements DeadLetterStore {
  private readonly letters = new Map<string, Stored>();
  private seq = 0;

  async add(letters: readonly DeadLetter[]): Promise<void> {
    for (const letter of letters) {
      this.letters.set(letter.id, {
        json: encodeDeadLetter(letter),
        deadAt: letter.deadAt.getTime(),
        seq: this.seq++,
      });
    }
  }

  async list(
    filter: DeadLetterFilter = {},
    onCorrupt?: (error: CorruptDeadLetterError) => void,
  ): Promise<DeadLetter[]> {
    const ordered = [...this.letters].sort(([, a], [, b]) => a.deadAt - b.deadAt || a.seq - b.seq);
    const found: DeadLetter[] = [];
    for (const [id, stored] of ordered) {
      // As the Redis store's sorted set: the time bounds select before a letter is read.
      if (filter.since !== undefined && stored.deadAt < filter.since.getTime()) continue;
      if (filter.until !== undefined && stored.deadAt >= filter.until.getTime()) continue;
      if (filter.limit !== undefined && found.length >= filter.limit) break;
      const letter = readLetter(stored.json, id, onCorrupt);
      if (letter !== undefined && matchesDeadLetterFilter(letter, filter)) found.push(letter);
    }
    return found;
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    const stored = this.letters.get(id);
    return stored === undefined ? undefined : decodeDeadLetter(stored.json, id);
  }

  async remove(letters: readonly (string | DeadLetterVersion)[]): Promise<number> {
    let removed = 0;
    for (const ref of letters) {
      const id = typeof ref === 'string' ? ref : ref.id;
      const stored = this.letters.get(id);
      if (stored === undefined) continue;
      if (typeof ref !== 'string' && stored.deadAt !== ref.deadAt.getTime()) continue;
      this.letters.delete(id);
      removed++;
    }
    return removed;
  }
}
