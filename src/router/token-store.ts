import type { StoredToken } from './client-token.js';

/** The port of the API tokens (a Redis hash in `redisTransport()`'s router stores). */
export interface TokenStore {
  /** Stores a token; returns `false`, storing nothing, when a token with that hash exists. */
  addToken(token: StoredToken): Promise<boolean>;
  /** The token with this hash, or `undefined`. */
  findToken(hash: string): Promise<StoredToken | undefined>;
  /** Every token, oldest first. */
  listTokens(): Promise<StoredToken[]>;
  /** Removes the token with this hash; returns it, or `undefined` when there was none. */
  removeToken(hash: string): Promise<StoredToken | undefined>;
}
