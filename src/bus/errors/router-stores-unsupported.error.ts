import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * `bus.router`, or `startRouter(config, options, { transport })`, on a
 * transport that cannot hold the HTTP event router's data (no
 * `routerStores`), such as the SQL transport (and SQLite, the embedded default): the router keeps its records
 * on Redis, as Routemaster does.
 */
export class RouterStoresUnsupportedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_ROUTER_STORES_UNSUPPORTED';

  /** @param transport - the transport's name (`sql-postgres`, or the adapter's: `sql`). */
  constructor(readonly transport: string) {
    super(
      `the HTTP event router keeps its tokens, subscribers and queued batches on Redis (as Routemaster does), and the transport ${JSON.stringify(transport)} holds none of them (it has no routerStores): run the router on redisTransport(), with the bus whose topicRoute handlers feed it, or give startRouter stores of its own ({ stores }). A bus on any transport can still publish to a running router over its HTTP API`,
    );
  }
}
