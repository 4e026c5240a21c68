import type { StoredToken } from '../../router/client-token.js';
import type { TokenStore } from '../../router/token-store.js';

/** {@link TokenStore} in this process's memory: a map by token hash. */
export class MemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, StoredToken>();

  async addToken(token: StoredToken): Promise<boolean> {
    if (this.tokens.has(token.hash)) return false;
    this.tokens.set(token.hash, { ...token });
    return true;
  }

  async findToken(hash: string): Promise<StoredToken | undefined> {
    const token = this.tokens.get(hash);
    return token === undefined ? undefined : { ...token };
  }

  async listTokens(): Promise<StoredToken[]> {
    return sortTokens([...this.tokens.values()].map((t) => ({ ...t })));
  }

  async removeToken(hash: string): Promise<StoredToken | undefined> {
    const token = this.tokens.get(hash);
    this.tokens.delete(hash);
    return token;
  }
}

/** Oldest first; tokens made in the same millisecond by hash, as the Redis adapter sorts them. */
function sortTokens(tokens: StoredToken[]): StoredToken[] {
  return tokens.sort((a, b) => a.createdAt - b.createdAt || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
}
