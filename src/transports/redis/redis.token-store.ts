import type { StoredToken } from '../../router/client-token.js';
import type { TokenStore } from '../../router/token-store.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { routerKeys } from './router-keys.js';

/** {@link TokenStore} on Redis: one hash, token hash to the stored token's JSON, under the bus's hash tag. */
export class RedisTokenStore implements TokenStore {
  private readonly key: string;

  constructor(
    private readonly client: RedisClient,
    names: Pick<QueueNames, 'tag'>,
  ) {
    this.key = routerKeys(names.tag).tokens;
  }

  async addToken(token: StoredToken): Promise<boolean> {
    const { name, hash, hint, createdAt } = token;
    return (await this.client.hsetnx(this.key, hash, JSON.stringify({ name, hash, hint, createdAt }))) === 1;
  }

  async findToken(hash: string): Promise<StoredToken | undefined> {
    const json = await this.client.hget(this.key, hash);
    return json === null ? undefined : (JSON.parse(json) as StoredToken);
  }

  async listTokens(): Promise<StoredToken[]> {
    const all = Object.values(await this.client.hgetall(this.key)).map((j) => JSON.parse(j) as StoredToken);
    return all.sort((a, b) => a.createdAt - b.createdAt || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  }

  async removeToken(hash: string): Promise<StoredToken | undefined> {
    const replies = await this.client.multi().hget(this.key, hash).hdel(this.key, hash).exec();
    const json = replies?.[0]?.[1];
    return typeof json === 'string' ? (JSON.parse(json) as StoredToken) : undefined;
  }
}
