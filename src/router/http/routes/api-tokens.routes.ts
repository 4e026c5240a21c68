import { generateToken, HINT_MARK, hashToken, storedToken } from '../../api-tokens.js';
import { ApiError, badRequest, notFound } from '../../errors/api.error.js';
import { clientNameProblem } from '../../router-names.js';
import { isPlainObject, list } from '../publish-body.js';
import type { RouteContext } from '../route-context.js';

/**
 * `/api_tokens`, root key only. Tokens are stored hashed, so `GET` lists each
 * token's hint (`billing--3f2a…`) where Routemaster lists the token itself,
 * and answers `[]` with 200 when there is none (Routemaster's 204 makes its
 * own Ruby client fail to parse the empty body). `DELETE` takes the token, or
 * a hint as listed (it holds `…`, which no token does) when exactly one token
 * has it: 404 when none has, 409 when several have (then the full token is
 * needed), so a script revoking by hint never believes it revoked nothing.
 */
export function registerApiTokenRoutes({ app, deps, auth, tokenCache, now }: RouteContext): void {
  const root = { onRequest: auth.guard(['root']) };

  app.get('/api_tokens', root, async () => {
    const tokens = await deps.tokens.listTokens();
    return tokens.map((token) => ({ name: token.name, token: token.hint }));
  });

  app.post('/api_tokens', root, async (request, reply) => {
    const body = request.body;
    if (!isPlainObject(body)) throw badRequest('bad_token', 'send a JSON object {name, token?} as the body');
    const unknown = Object.keys(body).filter((key) => key !== 'name' && key !== 'token');
    if (unknown.length > 0)
      throw badRequest('bad_token', `unknown keys ${list(unknown)}: send {name, token?}`);
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
    const hash = given.includes(HINT_MARK) ? await hashOfHint(given) : hashToken(given);
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

  /** The hash of the one token listed with `hint`; a 404 when none is, a 409 when several are. */
  async function hashOfHint(hint: string): Promise<string> {
    const matches = (await deps.tokens.listTokens()).filter((token) => token.hint === hint);
    const [match, ...others] = matches;
    if (match === undefined) {
      throw notFound(
        'no_token',
        'no token is listed with this hint: pass the full token, or a hint as GET /api_tokens lists it',
      );
    }
    if (others.length > 0) {
      throw new ApiError(
        409,
        'ambiguous_hint',
        `${matches.length} tokens are listed with this hint: pass the full token to delete one`,
      );
    }
    return match.hash;
  }
}
