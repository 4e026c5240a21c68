import { generateToken, hashToken, storedToken } from '../../api-tokens.js';
import { ApiError, badRequest, notFound } from '../../errors/api.error.js';
import { type ListedTokenKey, listedTokenKeys, parseListedKey, tokensOfKey } from '../../listed-token-key.js';
import { clientNameProblem } from '../../router-names.js';
import { isPlainObject } from '../publish-body.js';
import type { RouteContext } from '../route-context.js';

/**
 * `/api_tokens`, root key only. Tokens are stored hashed, so `GET` lists a
 * key per token (its hint and hash digits, `billing--3f2a...5e8c01d2f4a9`:
 * unique and ASCII) where Routemaster lists the token itself, and answers
 * `[]` with 200 when there is none (Routemaster's 204 makes its own Ruby
 * client fail to parse the empty body). `DELETE` takes the token or a listed
 * key (it holds `...`, which no token does), so routemaster-client's
 * `token_list` then `token_del` works; a key that designates no token is a
 * 404 and one that designates several (a bare hint, `billing--3f2a…`, as
 * listings showed them before) a 409, so a script revoking by key never
 * believes it revoked nothing.
 */
export function registerApiTokenRoutes({ app, deps, auth, tokenCache, now }: RouteContext): void {
  const root = { onRequest: auth.guard(['root']) };

  app.get('/api_tokens', root, async () => {
    const tokens = await deps.tokens.listTokens();
    const keys = listedTokenKeys(tokens);
    return tokens.map((token, i) => ({ name: token.name, token: keys[i] }));
  });

  app.post('/api_tokens', root, async (request, reply) => {
    const body = request.body;
    if (!isPlainObject(body)) throw badRequest('bad_token', 'send a JSON object {name, token?} as the body');
    // Other keys are ignored, as Routemaster does.
    const badName = clientNameProblem(body.name, 'name');
    if (badName !== undefined) throw badRequest('bad_name', badName);
    const name = body.name as string;
    const given = body.token ?? undefined;
    if (given !== undefined) {
      const badToken = clientNameProblem(given, 'token');
      if (badToken !== undefined) throw badRequest('bad_token', badToken);
      if (auth.isRootKey(given as string)) {
        throw badRequest('bad_token', 'a client token cannot be the root key: choose another token');
      }
    }
    const token = (given as string | undefined) ?? generateToken(name);
    if (!(await deps.tokens.addToken(storedToken(name, token, now())))) {
      throw new ApiError(
        409,
        'token_exists',
        'this token exists already: choose another, or leave token out',
      );
    }
    reply.code(201);
    return { name, token };
  });

  app.delete<{ Params: { token: string } }>('/api_tokens/:token', root, async (request, reply) => {
    const given = request.params.token;
    const listed = parseListedKey(given);
    const hash = listed === undefined ? hashToken(given) : await hashOfKey(listed);
    tokenCache.delete(hash);
    const removed = await deps.tokens.removeToken(hash);
    if (removed !== undefined) {
      const others = await deps.tokens.listTokens();
      // The subscriber belongs to the client, which lives on while it has another token.
      if (!others.some((token) => token.name === removed.name)) {
        await deps.subscribers.removeSubscriber(removed.name);
      }
    }
    // 204 also when there was no such token, as Routemaster: deleting twice is not an error.
    reply.code(204).send();
  });

  /** The hash of the one token `key` designates; a 404 when none is, a 409 when several are. */
  async function hashOfKey(key: ListedTokenKey): Promise<string> {
    const matches = tokensOfKey(key, await deps.tokens.listTokens());
    const [match, ...others] = matches;
    if (match === undefined) {
      throw notFound(
        'no_token',
        'no token is listed with this key: pass the full token, or a key as GET /api_tokens lists it',
      );
    }
    if (others.length > 0) {
      throw new ApiError(
        409,
        'ambiguous_hint',
        `${matches.length} tokens match this key: pass the full token, or a key as GET /api_tokens lists it now`,
      );
    }
    return match.hash;
  }
}
