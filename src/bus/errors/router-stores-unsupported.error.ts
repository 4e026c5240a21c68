import { CommitbusError } from '../../support/commitbus-error.js';

/**
 * `bus.router`, or `startRouter(config, options, { transport })`, on a
 * transport that cannot hold the HTTP event router's data (no
 * `routerStores`).
 */
export class RouterStoresUnsupportedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_ROUTER_STORES_UNSUPPORTED';

  /** @param transport - the transport adapter's name. */
  constructor(readonly transport: string) {
    super(
      `the transport ${JSON.stringify(transport)} keeps no HTTP event router data (it has no routerStores): run the router on one that has them (redisTransport(), or memoryTransport() for tests), or give startRouter stores of its own`,
    );
  }
}
