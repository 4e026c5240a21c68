import type { StoredToken } from '../client-token.js';

/** Most tokens remembered at once; past it the cache starts afresh (a flood of tokens cannot grow it). */
const MAX_ENTRIES = 10_000;

/** Known tokens by hash, each trusted for `ttlMs` after it was read from the store. */
export class TokenCache {
  readonly #entries = new Map<string, { token: StoredToken; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** The token with this hash while it is fresh. */
  get(hash: string): StoredToken | undefined {
    const entry = this.#entries.get(hash);
    if (entry === undefined) return undefined;
    if (entry.until > this.now()) return entry.token;
    this.#entries.delete(hash);
    return undefined;
  }

  /** Remembers a token read from the store. */
  set(token: StoredToken): void {
    if (this.ttlMs === 0) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(token.hash, { token, until: this.now() + this.ttlMs });
  }

  /** Forgets a token (it was deleted). */
  delete(hash: string): void {
    this.#entries.delete(hash);
  }
}
