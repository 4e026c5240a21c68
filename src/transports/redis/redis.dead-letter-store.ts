import type { DeadLetter } from '../../dead-letters/dead-letter.js';
import { decodeDeadLetter, encodeDeadLetter, readLetter } from '../../dead-letters/dead-letter-codec.js';
import {
  type DeadLetterFilter,
  type DeadLetterStore,
  type DeadLetterVersion,
  matchesDeadLetterFilter,
} from '../../dead-letters/dead-letter-store.js';
import type { CorruptDeadLetterError } from '../../dead-letters/errors/corrupt-dead-letter.error.js';
import { deadLetterScripts } from './dead-letter-scripts.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { isRedisOutage } from './redis-outage.js';

// Letters per script call or HMGET: keeps each round trip and Lua run short.
const CHUNK = 500;

/**
 * `DeadLetterStore` on Redis: each letter's JSON in a hash under its id,
 * and the ids in a sorted set by `deadAt` for listing oldest first. Both keys
 * live under the bus's prefix (see {@link QueueNames}).
 */
export class RedisDeadLetterStore implements DeadLetterStore {
  private readonly hash: string;
  private readonly byTime: string;

  /**
   * @param unavailable - what an outage's error becomes (the server named, no password); other
   * errors (a reply about the command itself) pass through.
   */
  constructor(
    private readonly client: RedisClient,
    names: Pick<QueueNames, 'deadLetters' | 'deadLettersByTime'>,
    private readonly unavailable: (action: string, error: unknown) => Error = (_, error) => error as Error,
  ) {
    this.hash = names.deadLetters;
    this.byTime = names.deadLettersByTime;
  }

  add(letters: readonly DeadLetter[]): Promise<void> {
    return this.call(`store ${letters.length} dead letter(s)`, () => this.addAll(letters));
  }

  list(
    filter: DeadLetterFilter = {},
    onCorrupt?: (error: CorruptDeadLetterError) => void,
  ): Promise<DeadLetter[]> {
    return this.call('list dead letters', () => this.listFrom(filter, onCorrupt));
  }

  get(id: string): Promise<DeadLetter | undefined> {
    return this.call('read a dead letter', async () => {
      const json = await this.client.hget(this.hash, id);
      return json === null ? undefined : decodeDeadLetter(json, id);
    });
  }

  remove(letters: readonly (string | DeadLetterVersion)[]): Promise<number> {
    return this.call(`remove ${letters.length} dead letter(s)`, () => this.removeAll(letters));
  }

  private async call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw isRedisOutage(error) ? this.unavailable(action, error) : error;
    }
  }

  private async addAll(letters: readonly DeadLetter[]): Promise<void> {
    for (const chunk of chunks(letters)) {
      const triples = chunk.flatMap((l) => [l.id, l.deadAt.getTime(), encodeDeadLetter(l)]);
      await deadLetterScripts(this.client).commitbusAddDeadLetters(this.hash, this.byTime, ...triples);
    }
  }

  private async listFrom(
    filter: DeadLetterFilter,
    onCorrupt: ((error: CorruptDeadLetterError) => void) | undefined,
  ): Promise<DeadLetter[]> {
    // The time bounds select on the sorted set's scores: a page of a long list reads only its part.
    const min = filter.since === undefined ? '-inf' : filter.since.getTime();
    const max = filter.until === undefined ? '+inf' : `(${filter.until.getTime()}`;
    const { limit } = filter;
    const found: DeadLetter[] = [];
    // Reads ids a chunk at a time (`LIMIT offset count`) until `limit` letters match: a page of
    // 500 out of 100,000 letters reads about 500 ids, not all of them.
    const onlyTime = !hasFieldFilters(filter);
    for (let offset = 0; limit === undefined || found.length < limit; ) {
      const count = limit === undefined || !onlyTime ? CHUNK : Math.min(CHUNK, limit - found.length);
      const ids = await this.client.zrangebyscore(this.byTime, min, max, 'LIMIT', offset, count);
      offset += ids.length;
      const jsons = ids.length === 0 ? [] : await this.client.hmget(this.hash, ...ids);
      for (const [i, json] of jsons.entries()) {
        if (json === null) continue;
        if (limit !== undefined && found.length >= limit) return found;
        const letter = readLetter(json, ids[i] as string, onCorrupt);
        if (letter !== undefined && matchesDeadLetterFilter(letter, filter)) found.push(letter);
      }
      if (ids.length < count) break;
    }
    return found;
  }

  private async removeAll(letters: readonly (string | DeadLetterVersion)[]): Promise<number> {
    let removed = 0;
    for (const chunk of chunks(letters)) {
      const pairs = chunk.flatMap((ref) =>
        typeof ref === 'string' ? [ref, ''] : [ref.id, ref.deadAt.getTime()],
      );
      removed += await deadLetterScripts(this.client).commitbusRemoveDeadLetters(
        this.hash,
        this.byTime,
        ...pairs,
      );
    }
    return removed;
  }
}

// Whether `filter` selects on a letter's fields (not only on its time and a limit).
function hasFieldFilters(filter: DeadLetterFilter): boolean {
  return Object.entries(filter).some(
    ([field, value]) => value !== undefined && !['since', 'until', 'limit'].includes(field),
  );
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}
