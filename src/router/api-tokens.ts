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

/**
 * What listings show of a token: its first third followed by `…` (for a
 * generated token, the client's name and a few hex digits), enough to tell
 * tokens apart, too little to use one.
 */
export function tokenHint(token: string): string {
  return `${token.slice(0, Math.floor(token.length / 3))}…`;
}

/** The record stored for `token` of client `name`. */
export function storedToken(name: string, token: string, now: number): StoredToken {
  return { name, hash: hashToken(token), hint: tokenHint(token), createdAt: now };
}
