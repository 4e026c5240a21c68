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

/**
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
