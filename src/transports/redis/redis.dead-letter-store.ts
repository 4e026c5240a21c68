import type { DeadLetter } from '../../dead-letters/dead-letter.js';
import { decodeDeadLetter, encodeDeadLetter, readLetter } from '../../dead-letters/dead-letter-codec.js';
import { decodeGroupCounts, groupOf } from '../../dead-letters/dead-letter-groups.js';
import {
  type DeadLetterCounts,
  type DeadLetterFilter,
  type DeadLetterRetention,
  type DeadLetterStore,
  type DeadLetterStoreRetention,
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

/** The keys of a {@link RedisDeadLetterStore}. */
export type DeadLetterKeys = Pick<
  QueueNames,
  'deadLetters' | 'deadLettersByTime' | 'deadLetterGroups' | 'deadLetterCounts' | 'deadLettersDropped'
>;

/**
 * `DeadLetterStore` on Redis: each letter's JSON in a hash under its id,
 * the ids in a sorted set by `deadAt` for listing oldest first, each letter's
 * group in a hash by id and the groups' counts in another, and the count of
 * letters the retention dropped. Every key lives under the bus's prefix and
 * its hash tag (see {@link QueueNames}), so each script's keys share a
 * Cluster slot.
 */
export class RedisDeadLetterStore implements DeadLetterStore {
  private readonly hash: string;
  private readonly byTime: string;
  private readonly keys: DeadLetterKeys;
  private readonly retention: DeadLetterRetention;
  private readonly onDropped: ((count: number) => void) | undefined;

  /**
   * @param unavailable - what an outage's error becomes (the server named, no password); other
   * errors (a reply about the command itself) pass through.
   */
  constructor(
    private readonly client: RedisClient,
    names: DeadLetterKeys,
    private readonly unavailable: (action: string, error: unknown) => Error = (_, error) => error as Error,
    options: DeadLetterStoreRetention = {},
  ) {
    this.hash = names.deadLetters;
    this.byTime = names.deadLettersByTime;
    this.keys = names;
    this.retention = options.retention ?? { maxCount: 0, maxAgeMs: 0 };
    this.onDropped = options.onDropped;
  }

  add(letters: readonly DeadLetter[]): Promise<number> {
    return this.call(`store ${letters.length} dead letter(s)`, () => this.addAll(letters));
  }

  counts(): Promise<DeadLetterCounts> {
    return this.call('count dead letters', async () => {
      const [groups, dropped] = await Promise.all([
        this.client.hgetall(this.keys.deadLetterCounts),
        this.client.get(this.keys.deadLettersDropped),
      ]);
      return decodeGroupCounts(Object.entries(groups), Number(dropped ?? 0));
    });
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

  private async addAll(letters: readonly DeadLetter[]): Promise<number> {
    const k = this.keys;
    const { maxCount, maxAgeMs } = this.retention;
    let dropped = 0;
    for (const chunk of chunks(letters)) {
      const quads = chunk.flatMap((l) => [l.id, l.deadAt.getTime(), groupOf(l), encodeDeadLetter(l)]);
      const cutoff = maxAgeMs > 0 ? Date.now() - maxAgeMs : '';
      dropped += await deadLetterScripts(this.client).commitbusAddDeadLetters(
        ...[k.deadLetters, k.deadLettersByTime, k.deadLetterGroups, k.deadLetterCounts, k.deadLettersDropped],
        maxCount,
        cutoff,
        ...quads,
      );
    }
    if (dropped > 0) this.onDropped?.(dropped);
    return dropped;
  }

  private async listFrom(
    filter: DeadLetterFilter,
    onCorrupt: ((error: CorruptDeadLetterError) => void) | undefined,
  ): Promise<DeadLetter[]> {
    // The time bounds (and the cursor's time) select on the sorted set's scores: a page of a long list reads only
    // its part; the cursor's ties (same score, id not past it) are skipped as they come.
    const [min, max] = scoreBounds(filter);
    const newest = filter.order === 'newest';
    const past = pastCursor(filter);
    const { limit } = filter;
    const found: DeadLetter[] = [];
    // Reads ids a chunk at a time (`LIMIT offset count`) until `limit` letters match: a page of
    // 500 out of 100,000 letters reads about 500 ids, not all of them.
    const onlyTime = !hasFieldFilters(filter) && filter.after === undefined;
    for (let offset = 0; limit === undefined || found.length < limit; ) {
      const count = limit === undefined || !onlyTime ? CHUNK : Math.min(CHUNK, limit - found.length);
      const flat = newest
        ? await this.client.zrevrangebyscore(this.byTime, max, min, 'WITHSCORES', 'LIMIT', offset, count)
        : await this.client.zrangebyscore(this.byTime, min, max, 'WITHSCORES', 'LIMIT', offset, count);
      const read = flat.length / 2;
      offset += read;
      const ids = pairs(flat).flatMap(([id, score]) => (past(id, Number(score)) ? [id] : []));
      const jsons = ids.length === 0 ? [] : await this.client.hmget(this.hash, ...ids);
      for (const [i, json] of jsons.entries()) {
        if (json === null) continue;
        if (limit !== undefined && found.length >= limit) return found;
        const letter = readLetter(json, ids[i] as string, onCorrupt);
        if (letter !== undefined && matchesDeadLetterFilter(letter, filter)) found.push(letter);
      }
      if (read < count) break;
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
        ...[this.hash, this.byTime, this.keys.deadLetterGroups, this.keys.deadLetterCounts],
        ...pairs,
      );
    }
    return removed;
  }
}

// The scores a list reads, `[min, max]` as ZRANGEBYSCORE takes them: `since`, `until` and the cursor's time.
function scoreBounds(filter: DeadLetterFilter): [string, string] {
  let min = filter.since === undefined ? '-inf' : String(filter.since.getTime());
  let max = filter.until === undefined ? '+inf' : `(${filter.until.getTime()}`;
  const at = filter.after?.deadAt.getTime();
  if (at === undefined) return [min, max];
  if (filter.order === 'newest') {
    if (filter.until === undefined || at < filter.until.getTime()) max = String(at);
  } else if (filter.since === undefined || at >= filter.since.getTime()) {
    min = String(at);
  }
  return [min, max];
}

// Whether a member comes after the cursor in the list's order: Redis orders a score's members by their bytes.
function pastCursor(filter: DeadLetterFilter): (id: string, score: number) => boolean {
  const { after } = filter;
  if (after === undefined) return () => true;
  const at = after.deadAt.getTime();
  const cursor = Buffer.from(after.id);
  const sign = filter.order === 'newest' ? -1 : 1;
  return (id, score) => score !== at || Buffer.compare(Buffer.from(id), cursor) * sign > 0;
}

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}

// Whether `filter` selects on a letter's fields (not only on its time and a limit).
function hasFieldFilters(filter: DeadLetterFilter): boolean {
  return Object.entries(filter).some(
    ([field, value]) => value !== undefined && !['since', 'until', 'limit', 'order', 'after'].includes(field),
  );
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}
