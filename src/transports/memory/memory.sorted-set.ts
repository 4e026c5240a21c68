/**
 * A sorted set as Redis keeps one: members with a score, ordered by score,
 * then by member. Adding and removing cost a binary search and one splice,
 * reading the first member nothing.
 */
export class MemorySortedSet {
  private readonly scores = new Map<string, number>();
  private readonly order: string[] = [];

  /** How many members it holds. */
  get size(): number {
    return this.order.length;
  }

  /** The score of `member`, if it is in the set. */
  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** The first member (lowest score) and its score, if any. */
  first(): { member: string; score: number } | undefined {
    const member = this.order[0];
    if (member === undefined) return undefined;
    return { member, score: this.scores.get(member) ?? 0 };
  }

  /** Adds `member` with `score`, or moves it there when it is in the set. */
  add(member: string, score: number): void {
    if (this.scores.get(member) === score) return;
    this.delete(member);
    this.scores.set(member, score);
    this.order.splice(this.indexOf(member, score), 0, member);
  }

  /** Removes `member`; `false` when it was not in the set. */
  delete(member: string): boolean {
    const score = this.scores.get(member);
    if (score === undefined) return false;
    this.order.splice(this.indexOf(member, score), 1);
    this.scores.delete(member);
    return true;
  }

  /** Where `member` with `score` is, or would go. */
  private indexOf(member: string, score: number): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = this.order[mid] as string;
      const otherScore = this.scores.get(other) ?? 0;
      if (otherScore < score || (otherScore === score && other < member)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
