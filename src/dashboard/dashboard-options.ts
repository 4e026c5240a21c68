import type { IncomingHttpHeaders } from 'node:http';
import type { EventBus } from '../bus/event-bus.js';
import type { EventStore } from '../event-store/event-store.js';
import type { RouterStores } from '../router/router-stores.js';

/** What an {@link DashboardAuth} hook sees of a request. */
export interface DashboardRequest {
  /** `GET`, `POST`, ... */
  readonly method: string;
  /** The path and query, e.g. `/api/overview`. */
  readonly url: string;
  /** The request's headers (`authorization`, cookies, ...). */
  readonly headers: IncomingHttpHeaders;
}

/**
 * Decides whether a request may see the dashboard (pages, `/api`, bull-board):
 * resolve to `true` to let it in. Runs before every request.
 */
export type DashboardAuth = (request: DashboardRequest) => boolean | Promise<boolean>;

/** HTTP Basic credentials the dashboard asks for; never logged. */
export interface DashboardBasicAuth {
  /** The user name. */
  readonly username: string;
  /** The password (compared in constant time). */
  readonly password: string;
}

/** How bull-board is mounted (the object form of `bullBoard`). */
export interface DashboardBullBoardOptions {
  /**
   * Whether bull-board refuses every change (pause, resume, retry, clean,
   * promote, remove, add; a 405) and hides its buttons. **Dangerous when
   * `false`**: one PUT pauses a queue the bus's async handlers run on, and
   * bull-board's actions go around commitbus (no audit, no dead letters
   * kept for what it removes).
   * @defaultValue true
   */
  readonly readOnly?: boolean;
}

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** The bus to show and act on: its dead letters, rules, halted keys, backlog and BullMQ queues. */
  readonly bus: EventBus;
  /** An event store to show (its version, and its halt with retry and skip). */
  readonly eventStore?: EventStore;
  /**
   * The router's stores, to list its subscribers and their queues (e.g.
   * `bus.router`, or a running router's `stores`).
   */
  readonly router?: RouterStores;
  /**
   * The port to listen on; 0 picks a free one (see `url`).
   * @defaultValue 0
   */
  readonly port?: number;
  /**
   * The address to listen on. Anyone who reaches the dashboard can re-drive,
   * purge and pause: keep it on loopback, or set `auth` or `basicAuth`.
   * @defaultValue `'127.0.0.1'`
   */
  readonly host?: string;
  /**
   * Where the dashboard sits under the server, e.g. `/ops`; bull-board is
   * at `<basePath>/queues`, the JSON API at `<basePath>/api`.
   * @defaultValue `''` (the root)
   */
  readonly basePath?: string;
  /** HTTP Basic credentials to require (browsers ask for them). */
  readonly basicAuth?: DashboardBasicAuth;
  /** A hook deciding whether each request may in (after `basicAuth`, when both are set). */
  readonly auth?: DashboardAuth;
  /**
   * Mount bull-board for the bus's BullMQ queues (Redis transport only);
   * needs `@bull-board/api` and `@bull-board/fastify`. Left out (or an
   * object), it is mounted when those are installed, and the page says it
   * is not otherwise; `true` throws `BullBoardMissingError` when they are
   * not; `false` never mounts it. It is read-only unless
   * `{ readOnly: false }` (see {@link DashboardBullBoardOptions}).
   * @defaultValue mounted read-only on the Redis transport when installed
   */
  readonly bullBoard?: boolean | DashboardBullBoardOptions;
  /**
   * How often the page reads itself (`GET <basePath>/`) and the history
   * (`GET api/history`) again and updates in place the sections that
   * changed, in ms.
   * At least 100 ms: each open page reads the bus's state at every refresh.
   * @defaultValue 5000
   */
  readonly refreshMs?: number;
  /**
   * Host names the dashboard answers to besides the address it listens on,
   * `localhost`, `127.0.0.1` and `[::1]` (e.g. `ops.example.com`, the name
   * your proxy passes on). Any other `Host` gets a 421: a site whose name
   * was made to resolve to this address (DNS rebinding) cannot use it.
   * Listening on `0.0.0.0`, list the names and addresses clients use.
   * @defaultValue `[]`
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins whose pages may act (POST, PUT, ...) besides the dashboard's own,
   * e.g. `https://ops.example.com` behind a proxy that rewrites `Host`.
   * Browsers that send `Sec-Fetch-Site: same-origin` need none.
   * @defaultValue `[]`
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * How long the page and the API's reads wait for each part (the bus's
   * status, queues, dead letters, halted keys, rules, the router, the event
   * store); a part with no answer by then reads `unavailable: no answer
   * within ... ms`, so a frozen server costs one bounded wait, never the page.
   * @defaultValue 5000
   */
  readonly readTimeoutMs?: number;
}

/** A dashboard started by {@link startDashboard}. */
export interface RunningDashboard {
  /** Its address, e.g. `http://127.0.0.1:41234` (with `basePath`). */
  readonly url: string;
  /** Stops serving; the bus, store and router stay open. */
  close(): Promise<void>;
}
