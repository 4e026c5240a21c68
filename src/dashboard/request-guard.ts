import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardAuth, DashboardBasicAuth } from './dashboard-options.js';

/** The header every mutating request must carry: a cross-origin page cannot send it without a CORS preflight, which the dashboard never grants. */
export const CSRF_HEADER = 'x-commitbus-dashboard';

/**
 * Whether a POST may act: it carries {@link CSRF_HEADER}, and when the
 * browser says where it comes from (`Origin`, `Sec-Fetch-Site`) that is this
 * dashboard. Resolves to why not, or `undefined`.
 */
export function refuseCrossSite(request: FastifyRequest): string | undefined {
  if (request.headers[CSRF_HEADER] !== '1') {
    return `a dashboard action needs the header ${CSRF_HEADER}: 1 (the page sends it; other sites cannot)`;
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return `a dashboard action must come from the dashboard's own page (Sec-Fetch-Site: ${site})`;
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      return 'a dashboard action came with an Origin that is not a URL';
    }
    if (host !== request.headers.host) {
      return `a dashboard action must come from the dashboard's own page, not ${origin}`;
    }
  } else if (origin === 'null') {
    return 'a dashboard action must come from the dashboard itself, not an opaque origin';
  }
  return undefined;
}

/** Builds the onRequest hook of `basicAuth` and `auth`, or `undefined` when neither is set. */
export function accessHook(
  basicAuth: DashboardBasicAuth | undefined,
  auth: DashboardAuth | undefined,
): ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined {
  if (basicAuth === undefined && auth === undefined) return undefined;
  const expected =
    basicAuth === undefined ? undefined : digest(`${basicAuth.username}:${basicAuth.password}`);
  return async (request, reply) => {
    if (expected !== undefined && !basicMatches(request.headers.authorization, expected)) {
      await reply
        .code(401)
        .header('www-authenticate', 'Basic realm="commitbus dashboard", charset="UTF-8"')
        .send({ message: 'the dashboard needs a user name and password' });
      return;
    }
    if (auth !== undefined) {
      const allowed = await auth({ method: request.method, url: request.url, headers: request.headers });
      if (!allowed) await reply.code(403).send({ message: 'the dashboard auth hook refused this request' });
    }
  };
}

// Hashes first, so the comparison takes the same time whatever the lengths.
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function basicMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  if (match === null) return false;
  const given = Buffer.from(match[1] as string, 'base64').toString('utf8');
  return timingSafeEqual(digest(given), expected);
}
