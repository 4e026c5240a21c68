import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InternalError } from '../../support/errors/internal.error.js';
import { hashToken } from '../api-tokens.js';
import { ApiError } from '../errors/api.error.js';
import type { TokenStore } from '../token-store.js';
import type { TokenCache } from './token-cache.js';

/** Who may call an endpoint: the root key, a client token, or anyone. */
export type Credential = 'root' | 'client';

/** Who called: the root key, or a client (its token's name and the token's hash). */
export type Caller =
  | { readonly kind: 'root' }
  | { readonly kind: 'client'; readonly name: string; readonly hash: string };

/** The username of an HTTP Basic `Authorization` header (the password is ignored), or `undefined`. */
export function basicUsername(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const username = colon === -1 ? decoded : decoded.slice(0, colon);
  return username === '' ? undefined : username;
}

const callers = new WeakMap<FastifyRequest, Caller>();

/** The caller a guard let through for this request. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  if (caller === undefined) throw new InternalError('no caller: the route has no authentication guard');
  return caller;
}

/** The client name of a request a client-only guard let through. */
export function clientOf(request: FastifyRequest): string {
  const caller = callerOf(request);
  if (caller.kind !== 'client') throw new InternalError('the route is not client-only');
  return caller.name;
}

/**
 * Checks HTTP Basic credentials: the root key (compared in constant time) or
 * a client token (looked up by its hash, cached). Tokens are never logged
 * nor echoed.
 */
export class Authenticator {
  readonly #rootHash: Buffer;

  constructor(
    rootKey: string,
    private readonly tokens: TokenStore,
    private readonly cache: TokenCache,
    private readonly realm: string,
  ) {
    this.#rootHash = createHash('sha256').update(rootKey, 'utf8').digest();
  }

  /** Whether `candidate` is the root key. */
  isRootKey(candidate: string): boolean {
    return timingSafeEqual(createHash('sha256').update(candidate, 'utf8').digest(), this.#rootHash);
  }

  /** An `onRequest` hook admitting only `allowed` callers (before the body is read). */
  guard(allowed: readonly Credential[]): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
    return async (request, reply) => {
      const caller = await this.#identify(basicUsername(request.headers.authorization), allowed);
      if (caller === undefined) {
        reply.header('www-authenticate', `Basic realm="${this.realm}"`);
        const needed = allowed
          .map((kind) => (kind === 'root' ? 'the root key' : 'a client token'))
          .join(' or ');
        throw new ApiError(
          401,
          'unauthorized',
          `this endpoint needs HTTP Basic auth with ${needed} as username`,
        );
      }
      callers.set(request, caller);
    };
  }

  async #identify(username: string | undefined, allowed: readonly Credential[]): Promise<Caller | undefined> {
    if (username === undefined) return undefined;
    if (allowed.includes('root') && this.isRootKey(username)) return { kind: 'root' };
    if (!allowed.includes('client')) return undefined;
    const hash = hashToken(username);
    let token = this.cache.get(hash);
    if (token === undefined) {
      token = await this.tokens.findToken(hash);
      if (token !== undefined) this.cache.set(token);
    }
    return token === undefined ? undefined : { kind: 'client', name: token.name, hash };
  }
}
