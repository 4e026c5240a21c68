import { CommitbusError } from '../../support/commitbus-error.js';

/** `bus.router` on a transport that cannot hold the HTTP event router's data (no `Transport.routerStores`). */
export class RouterStoresUnsupportedError extends CommitbusError {
  /** Stable code for `catch` blocks. */
  readonly code = 'COMMITBUS_ROUTER_STORES_UNSUPPORTED';

  /** @param transport - what the bus's transport is (its class name). */
  constructor(readonly transport: string) {
    super(
      `this bus's transport (${transport}) keeps no HTTP event router data (it has no routerStores): run the router on a bus whose transport has them (Redis, or the in-process one for tests), or give startRouter stores of its own`,
    );
  }
}
