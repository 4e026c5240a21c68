import { HINT_MARK } from './api-tokens.js';
import type { StoredToken } from './client-token.js';

/**
 * What separates a listed key's hint from its hash digits: ASCII, safe in a
 * URL path as it is, and never in a token (tokens are `[a-z0-9:_-]`).
 */
export const KEY_MARK = '...';

/** Hex digits of a token's hash a listed key shows at least (more when two tokens share them). */
export const KEY_HASH_DIGITS = 12;

/** A key as `GET /api_tokens` lists it, taken apart: the hint without its mark, and hash digits. */
export interface ListedTokenKey {
  /** The token's hint without `…` (`billing--3f2a`). */
  readonly stem: string;
  /** The first hex digits of the token's SHA-256 (none in a bare hint, `billing--3f2a…`). */
  readonly digits: string;
}

/** A stored hint without its closing `…`. */
export function hintStem(hint: string): string {
  return hint.endsWith(HINT_MARK) ? hint.slice(0, -HINT_MARK.length) : hint;
}

/**
 * The key `GET /api_tokens` lists for each token, in order: its hint, `...`
 * and the first {@link KEY_HASH_DIGITS} hex digits of its hash, more when
 * needed to tell it from every other token listed
 * (`billing--3f2a...5e8c01d2f4a9`). Unique, ASCII, usable in a URL as it
 * is, and too little to authenticate with: routemaster-client's
 * `token_list` keys its map by it and `token_del` deletes by it.
 */
export function listedTokenKeys(tokens: readonly StoredToken[]): string[] {
  const byHash = tokens.map((token) => token.hash).sort();
  const digits = new Map<string, number>();
  byHash.forEach((hash, i) => {
    const shared = Math.max(sharedPrefix(hash, byHash[i - 1]), sharedPrefix(hash, byHash[i + 1]));
    digits.set(hash, Math.max(KEY_HASH_DIGITS, shared + 1));
  });
  return tokens.map(
    (token) =>
      `${hintStem(token.hint)}${KEY_MARK}${token.hash.slice(0, digits.get(token.hash) ?? token.hash.length)}`,
  );
}

/**
 * `key` taken apart when it is a listed key (or a bare hint as listings
 * showed them before, `billing--3f2a…`); `undefined` when it is not one,
 * so it can only be a token.
 */
export function parseListedKey(key: string): ListedTokenKey | undefined {
  for (const mark of [KEY_MARK, HINT_MARK]) {
    const at = key.lastIndexOf(mark);
    if (at === -1) continue;
    const digits = key.slice(at + mark.length);
    // Anything after the mark that is not hash digits matches no token.
    return { stem: key.slice(0, at), digits: /^[0-9a-f]*$/.test(digits) ? digits : 'x' };
  }
  return undefined;
}

/** The tokens a listed key designates: its hint's, with a hash starting with its digits. */
export function tokensOfKey(key: ListedTokenKey, tokens: readonly StoredToken[]): StoredToken[] {
  return tokens.filter((token) => hintStem(token.hint) === key.stem && token.hash.startsWith(key.digits));
}

function sharedPrefix(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let n = 0;
  while (n < a.length && a[n] === b[n]) n += 1;
  return n;
}
