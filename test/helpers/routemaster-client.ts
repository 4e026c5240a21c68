import { type Dispatcher, request } from 'undici';

/** A response as the tests look at it. */
export interface Answer {
  /** The status code. */
  readonly status: number;
  /** The headers. */
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body as text. */
  readonly text: string;
  /** The body parsed as JSON (`undefined` when empty or not JSON). */
  readonly json: unknown;
}

/** What routemaster-client raises: `URI::InvalidURIError` or `Routemaster::Client::ConnectionError`. */
export class RubyClientError extends Error {
  constructor(
    readonly rubyClass: 'URI::InvalidURIError' | 'Routemaster::Client::ConnectionError',
    message: string,
  ) {
    super(`${rubyClass}: ${message}`);
  }
}

/**
 * A path as Faraday hands it to Ruby's URI (RFC 3986 parser), which raises
 * `URI::InvalidURIError` for a character a URI may not hold unescaped
 * (non-ASCII, spaces, quotes...): nothing is escaped on the way. The
 * fragment is dropped and the query split off, as Faraday's `Request#url` does.
 */
export function rubyRequestPath(path: string): string {
  const [withoutFragment = ''] = path.split('#', 1);
  const [pathPart = ''] = withoutFragment.split('?', 1);
  if (!/^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/.test(pathPart)) {
    throw new RubyClientError('URI::InvalidURIError', `bad URI(is not URI?): ${JSON.stringify(path)}`);
  }
  return withoutFragment;
}

/**
 * Not the gem (rubygems cannot be reached here): its requests and, for the
 * token calls (`tokenAdd`, `tokenList`, `tokenDel`), its behaviour, read from
 * routemaster-client 3.2.3 (`routemaster/client.rb`, `client/connection.rb`).
 * Sends requests to a router the way routemaster-client (Ruby, Faraday) does:
 * HTTP Basic `<token>:x`, `Content-Type: application/json` on POST and on
 * GET /topics (with no body), DELETE with no body, publish bodies
 * `{type, url, timestamp, data?}` with `timestamp: null` unless given.
 */
export class RoutemasterClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | undefined,
    private readonly dispatcher: Dispatcher,
  ) {}

  /** The same router with another token. */
  as(token: string | undefined): RoutemasterClient {
    return new RoutemasterClient(this.baseUrl, token, this.dispatcher);
  }

  /** `Routemaster::Client.created/updated/...`: POST /topics/:topic. */
  publish(
    topic: string,
    type: string,
    url: string,
    options: { t?: number; data?: unknown } = {},
  ): Promise<Answer> {
    const payload: Record<string, unknown> = { type, url, timestamp: options.t ?? null };
    if (options.data !== undefined && options.data !== null) payload.data = options.data;
    return this.send('POST', `/topics/${topic}`, JSON.stringify(payload));
  }

  /** `subscribe(topics:, callback:, **options)`: POST /subscription. */
  subscribe(body: Record<string, unknown>, path = '/subscription'): Promise<Answer> {
    return this.send('POST', path, JSON.stringify(body));
  }

  /** `token_add(name:, token:)`: POST /api_tokens. */
  addToken(name: string, token?: string): Promise<Answer> {
    return this.send('POST', '/api_tokens', JSON.stringify(token === undefined ? { name } : { name, token }));
  }

  /** `token_add(name:, token: nil)`: the token the router answers; raises on a non-2xx answer. */
  async tokenAdd(name: string, token?: string): Promise<string> {
    const answer = await this.addToken(name, token);
    if (!isSuccess(answer)) throw connectionError(`Failed to add token (status: ${answer.status})`);
    return (answer.json as { token: string }).token;
  }

  /**
   * `token_list`: GET /api_tokens read into a map of `token` to `name`, one
   * entry per distinct `token` (a later entry with the same `token` replaces
   * the earlier one's name, as a Ruby Hash does); raises on a non-2xx answer,
   * and on an empty body (`Oj.load('')` is nil: nil has no `each_with_object`).
   */
  async tokenList(): Promise<Map<string, string>> {
    const answer = await this.get('/api_tokens', false);
    if (!isSuccess(answer)) throw connectionError(`Failed to list tokens (status: ${answer.status})`);
    if (!Array.isArray(answer.json)) {
      throw connectionError("undefined method `each_with_object' for nil:NilClass");
    }
    const result = new Map<string, string>();
    for (const entry of answer.json as { token: string; name: string }[]) result.set(entry.token, entry.name);
    return result;
  }

  /**
   * `token_del(token:)`: DELETE "/api_tokens/#{token}", the key put in the
   * path as it is (Ruby's URI raises for one it cannot hold); raises on a
   * non-2xx answer.
   */
  async tokenDel(token: string): Promise<void> {
    const answer = await this.send('DELETE', rubyRequestPath(`/api_tokens/${token}`));
    if (!isSuccess(answer)) throw connectionError(`Failed to delete token (status: ${answer.status})`);
  }

  /** GET `path`; `monitor_topics` sends `Content-Type: application/json` with no body. */
  get(path: string, jsonContentType = path === '/topics'): Promise<Answer> {
    return this.send('GET', path, undefined, jsonContentType);
  }

  /** DELETE `path` with no body. */
  delete(path: string): Promise<Answer> {
    return this.send('DELETE', path);
  }

  /** POST `path` with `body` as it is (JSON unless `contentType` says otherwise). */
  post(path: string, body?: string, contentType = 'application/json'): Promise<Answer> {
    return this.send('POST', path, body, body !== undefined, contentType);
  }

  async send(
    method: Dispatcher.HttpMethod,
    path: string,
    body?: string,
    jsonContentType = body !== undefined,
    contentType = 'application/json',
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.token !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${this.token}:x`).toString('base64')}`;
    }
    if (jsonContentType) headers['content-type'] = contentType;
    const response = await request(`${this.baseUrl}${path}`, {
      method,
      headers,
      dispatcher: this.dispatcher,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  }
}

function isSuccess(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

function connectionError(message: string): RubyClientError {
  return new RubyClientError('Routemaster::Client::ConnectionError', message);
}
