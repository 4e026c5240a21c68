import type { SkippedRange } from '../../events/outgoing-event.js';

/**
 * How many skipped ranges a lane keeps before its two oldest merge, as
 * `SKIPPED_KEPT` in the Redis scripts' `includes/lane-skipped.lua`.
 */
const SKIPPED_KEPT = 32;

/**
 * Records on a lane's ranges (oldest first) that a re-base went past
 * `[from, to)`, so a later event for one of those positions is known to be
 * late rather than a copy of one handled. Past {@link SKIPPED_KEPT} the two
 * oldest merge: a position between them reads as skipped too, never as
 * handled. A re-base that skips nothing records nothing.
 */
export function recordSkipped(ranges: SkippedRange[], range: SkippedRange): void {
  if (range.to <= range.from) return;
  ranges.push(range);
  if (ranges.length > SKIPPED_KEPT) {
    const [oldest, newer] = ranges.splice(0, 2) as [SkippedRange, SkippedRange];
    ranges.unshift({ ...newer, from: oldest.from });
  }
}

/** The range of `ranges` holding `position`, or `undefined`. */
export function skippedAt(ranges: readonly SkippedRange[], position: number): SkippedRange | undefined {
  return ranges.find((range) => position >= range.from && position < range.to);
}

/** A lane's `skipped` column, read. */
export function parseSkipped(raw: string | null | undefined): SkippedRange[] {
  if (raw === null || raw === undefined || raw === '') return [];
  return JSON.parse(raw) as SkippedRange[];
}

/** A lane's ranges as its `skipped` column keeps them (`null` for none). */
export function formatSkipped(ranges: readonly SkippedRange[]): string | null {
  return ranges.length === 0 ? null : JSON.stringify(ranges);
}
