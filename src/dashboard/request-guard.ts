import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardAuth, DashboardBasicAuth } from './dashboard-options.js';

/** The header every commitbus action must carry: a cross-origin page cannot send it without a CORS preflight, which the dashboard never grants. */
export const CSRF_HEADER = 'x-commitbus-dashboard';

/** An `onRequest` hook of the dashboard's server. */
export type RequestHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The host names a dashboard always answers to, besides the one it listens on. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses (421) a request whose `Host` is not `listenHost`, a loopback name
 * or one of `allowedHosts` (compared without the port): a page that got its
 * own host name resolved to the dashboard's address (DNS rebinding) is
 * same-origin in the browser's eyes, and only its `Host` gives it away.
 */
export function hostGuard(listenHost: string, allowedHosts: readonly string[]): RequestHook {
  const allowed = new Set(
    [listenHost.includes(':') ? `[${listenHost}]` : listenHost, ...LOOPBACK_HOSTS, ...allowedHosts].map(
      (host) => host.toLowerCase(),
    ),
  );
  return async (request, reply) => {
    const host = hostName(request.headers.host);
    if (host === undefined || !allowed.has(host)) {
      await reply.code(421).send({
        message: `the dashboard does not answer to the host ${request.headers.host ?? '(none)'}: add it to allowedHosts if it is yours`,
      });
    }
  };
}

/**
 * Refuses (403) a request that changes something (any method but GET, HEAD
 * and OPTIONS, bull-board's routes included) when the browser says another
 * site sent it: see {@link refuseCrossSite}.
 */
export function crossSiteGuard(allowedOrigins: readonly string[]): RequestHook {
  const origins = new Set(allowedOrigins.map((origin) => origin.replace(/\/+$/, '').toLowerCase()));
  return async (request, reply) => {
    if (SAFE_METHODS.has(request.method)) return;
    const refused = refuseCrossSite(request, origins);
    if (refused !== undefined) await reply.code(403).send({ message: refused });
  };
}

/**
 * Why the browser says another site sent `request`, or `undefined`: its
 * `Sec-Fetch-Site` is not `same-origin` (or `none`), or, when the browser
 * sends no `Sec-Fetch-Site`, its `Origin` is neither the request's `Host` nor
 * one of `origins`. Requests without either header (scripts, curl) pass.
 */
export function refuseCrossSite(request: FastifyRequest, origins: ReadonlySet<string>): string | undefined {
  const site = request.headers['sec-fetch-site'];
  if (site === 'same-origin' || site === 'none') return undefined;
  if (site !== undefined) {
    return `a dashboard action must come from the dashboard's own page (Sec-Fetch-Site: ${site})`;
  }
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (origin === 'null')
    return 'a dashboard action must come from the dashboard itself, not an opaque origin';
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'a dashboard action came with an Origin that is not a URL';
  }
  if (url.host === request.headers.host || origins.has(url.origin.toLowerCase())) return undefined;
  return `a dashboard action must come from the dashboard's own page, not ${origin} (behind a proxy that rewrites Host, list the public origin in allowedOrigins)`;
}

/** Why a commitbus action (a POST to `<basePath>/api`) lacks {@link CSRF_HEADER}, or `undefined`. */
export function refuseWithoutHeader(request: FastifyRequest): string | undefined {
  return request.headers[CSRF_HEADER] === '1'
    ? undefined
    : `a dashboard action needs the header ${CSRF_HEADER}: 1 (the page sends it; other sites cannot)`;
}

/** Builds the onRequest hook of `basicAuth` and `auth`, or `undefined` when neither is set. */
export function accessHook(
  basicAuth: DashboardBasicAuth | undefined,
  auth: DashboardAuth | undefined,
): RequestHook | undefined {
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

/** The user name of a `Basic` Authorization header, or `undefined` (the password is never returned). */
export function basicUser(header: string | undefined): string | undefined {
  const given = basicCredentials(header);
  if (given === undefined) return undefined;
  const colon = given.indexOf(':');
  const user = colon < 0 ? given : given.slice(0, colon);
  return user === '' ? undefined : user;
}

// `example.com:3100` -> `example.com`, `[::1]:3100` -> `[::1]`, lower case.
function hostName(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined;
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d*)?$/.exec(host.trim());
  return match?.[1]?.toLowerCase();
}

// Hashes first, so the comparison takes the same time whatever the lengths.
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function basicCredentials(header: string | undefined): string | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
  return match === null ? undefined : Buffer.from(match[1] as string, 'base64').toString('utf8');
}

function basicMatches(header: string | undefined, expected: Buffer): boolean {
  const given = basicCredentials(header);
  return given !== undefined && timingSafeEqual(digest(given), expected);
}
