/** Topic names, as Routemaster has them: lower-case letters and underscores. */
export const TOPIC_NAME = /^[a-z_]{1,64}$/;

/** Client names and API tokens, as Routemaster's server accepts them. */
export const CLIENT_NAME = /^[a-z0-9:_-]{1,64}$/;

/** Why `name` is not a topic name, or `undefined` when it is one. */
export function topicNameProblem(name: unknown): string | undefined {
  if (typeof name === 'string' && TOPIC_NAME.test(name)) return undefined;
  return 'a topic name is 1 to 64 lower-case letters or underscores ([a-z_]{1,64})';
}

/** Why `name` is not a client name (or token), or `undefined` when it is one; `what` names it in the message. */
export function clientNameProblem(name: unknown, what: string): string | undefined {
  if (typeof name === 'string' && CLIENT_NAME.test(name)) return undefined;
  return `${what} must be 1 to 64 of a-z, 0-9, ':', '_' or '-' ([a-z0-9:_-]{1,64})`;
}

/**
 * The longest entity or callback URL the router takes, in UTF-8 bytes: every
 * event carries its URL to every subscriber, and a callback is read on every
 * delivery.
 */
export const MAX_URL_BYTES = 2_048;

/** Why `url` is too long to take (past {@link MAX_URL_BYTES}), or `undefined`; `what` names it in the message. */
export function urlLengthProblem(url: unknown, what: string): string | undefined {
  if (typeof url !== 'string') return undefined;
  const bytes = Buffer.byteLength(url, 'utf8');
  if (bytes <= MAX_URL_BYTES) return undefined;
  return `${what} is ${bytes} bytes long; the router takes URLs of at most ${MAX_URL_BYTES.toLocaleString('en-US')} bytes: shorten it (an id in the path, not the entity's state)`;
}

/** What a URL is to the router: an event's entity URL, or a subscriber's callback. */
export type UrlRole = 'entity' | 'callback';

/**
 * Why `url` is not an acceptable entity or callback URL, or `undefined` when
 * it is: an absolute https URL (http too when `allowHttp`) of at most
 * {@link MAX_URL_BYTES} bytes with no query string, as Routemaster requires, and no credentials (`user:pass@`): others
 * would see them. `what` names it in the message, `role` says what it is.
 */
export function urlProblem(
  url: unknown,
  what: string,
  allowHttp: boolean,
  role: UrlRole = 'entity',
): string | undefined {
  const schemes = allowHttp ? 'https (or http)' : 'https';
  if (typeof url !== 'string' || url === '') return `${what} must be a string: an absolute ${schemes} URL`;
  const tooLong = urlLengthProblem(url, what);
  if (tooLong !== undefined) return tooLong;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${what} is not an absolute URL; give an ${schemes} URL`;
  }
  const allowed = parsed.protocol === 'https:' || (allowHttp && parsed.protocol === 'http:');
  if (!allowed) {
    const hint = allowHttp
      ? ''
      : " (http is refused unless allowed: the router's ROUTER_ALLOW_HTTP_URLS=true or api.allowHttpUrls, commitbus router --dev, or topicRoute's own allowHttpUrls)";
    return `${what} must be an ${schemes} URL, not ${parsed.protocol.slice(0, -1)}${hint}`;
  }
  if (url.includes('?')) return `${what} must not have a query string`;
  if (parsed.username !== '' || parsed.password !== '') {
    // Every client sees callbacks in GET /subscriptions, and every subscriber sees event URLs.
    return `${what} must not carry a user or password (user:pass@host): ${USERINFO_HINTS[role]}`;
  }
  return undefined;
}

/** What to do instead of a credential in a URL, by what the URL is. */
const USERINFO_HINTS: Record<UrlRole, string> = {
  callback:
    'every client can list callbacks; put the credential in uuid, sent as the Basic username of each delivery',
  entity: 'every subscriber receives it; let subscribers fetch the entity with their own credentials',
};

/**
 * Why `uuid` cannot be the username of the HTTP Basic credentials sent with
 * deliveries, or `undefined` when it can: a non-empty string of up to 256
 * printable characters without ':'.
 */
export function uuidProblem(uuid: unknown): string | undefined {
  if (typeof uuid === 'string' && /^[\x21-\x39\x3b-\x7e]{1,256}$/.test(uuid)) return undefined;
  return "uuid must be a string of 1 to 256 printable ASCII characters without spaces or ':' (it is the username of the Basic credentials sent with each delivery), or left out to send none";
}
