import { createHash, randomBytes } from 'node:crypto';
import type { StoredToken } from './client-token.js';

/** A new token for client `name`: `<name>--<32 hex>`, as Routemaster makes them. */
export function generateToken(name: string): string {
  return `${name}--${randomBytes(16).toString('hex')}`;
}

/** The hex SHA-256 of a token: what is stored and looked up, never the token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A generated token: the client's name and `--`, then 32 hex digits. */
const GENERATED_TOKEN = /^(.+--)[0-9a-f]{32}$/;

/** How many characters of a token's secret part a hint shows, at most. */
const HINT_CHARS = 4;

/** The character that ends every hint, and that no token holds. */
export const HINT_MARK = '…';

/**
 * What listings show of a token: `<name>--` and 4 hex digits for a generated
 * token (`billing--3f2a…`), else its first 4 characters (fewer for a short
 * token: never more than a third), then `…`. Enough to tell tokens apart,
 * too little to use one.
 */
export function tokenHint(token: string): string {
  const generated = GENERATED_TOKEN.exec(token)?.[1];
  if (generated !== undefined)
    return `${generated}${token.slice(generated.length, generated.length + HINT_CHARS)}${HINT_MARK}`;
  return `${token.slice(0, Math.min(HINT_CHARS, Math.floor(token.length / 3)))}${HINT_MARK}`;
}

/** The record stored for `token` of client `name`. */
export function storedToken(name: string, token: string, now: number): StoredToken {
  return { name, hash: hashToken(token), hint: tokenHint(token), createdAt: now };
}
