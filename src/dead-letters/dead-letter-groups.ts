import type { DeadLetter, DeadLetterKind, DeadLetterReason } from './dead-letter.js';
import type { DeadLetterCounts, DeadLetterGroupCount } from './dead-letter-store.js';

/**
 * A letter's group as one string, the key its store counts it under: the
 * JSON array `[handler or null, kind, reason]`.
 */
export function groupOf(letter: Pick<DeadLetter, 'handler' | 'kind' | 'reason'>): string {
  return JSON.stringify([letter.handler ?? null, letter.kind, letter.reason]);
}

/**
 * {@link DeadLetterCounts} from a store's (group key, count) entries: groups
 * with no letters and keys that are not a group (a hand edit) are left out.
 */
export function decodeGroupCounts(
  entries: Iterable<readonly [string, string | number]>,
  dropped: number,
): DeadLetterCounts {
  const groups: DeadLetterGroupCount[] = [];
  for (const [key, value] of entries) {
    const count = Number(value);
    const group = parseGroup(key);
    if (group !== undefined && Number.isInteger(count) && count > 0) groups.push({ ...group, count });
  }
  return { total: groups.reduce((sum, g) => sum + g.count, 0), groups, dropped };
}

/** Sums `counts` per handler and per kind, the shapes a status shows. */
export function countsByHandlerAndKind(counts: DeadLetterCounts): {
  byHandler: Record<string, number>;
  byKind: Partial<Record<DeadLetterKind, number>>;
} {
  const byHandler: Record<string, number> = {};
  const byKind: Partial<Record<DeadLetterKind, number>> = {};
  for (const g of counts.groups) {
    if (g.handler !== undefined) byHandler[g.handler] = (byHandler[g.handler] ?? 0) + g.count;
    byKind[g.kind] = (byKind[g.kind] ?? 0) + g.count;
  }
  return { byHandler, byKind };
}

function parseGroup(key: string): Omit<DeadLetterGroupCount, 'count'> | undefined {
  try {
    const parsed: unknown = JSON.parse(key);
    if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
    const [handler, kind, reason] = parsed as unknown[];
    if ((handler !== null && typeof handler !== 'string') || typeof kind !== 'string') return undefined;
    if (typeof reason !== 'string') return undefined;
    return {
      handler: handler ?? undefined,
      kind: kind as DeadLetterKind,
      reason: reason as DeadLetterReason,
    };
  } catch {
    return undefined;
  }
}
