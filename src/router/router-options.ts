import type { DeliveryBackoff } from './delivery/delivery-backoff.js';
import type { DeliverySettings } from './delivery/delivery-settings.js';
import type { WebhookSenderOptions } from './delivery/webhook-sender.js';
import type { ApiSettings } from './http/api-settings.js';
import type { UpkeepSettings } from './upkeep/upkeep-settings.js';

/** What one router process does: serve the HTTP API, deliver batches, run the upkeep loops. */
export const ROUTER_ROLES = ['api', 'delivery', 'upkeep'] as const;

/** One of {@link ROUTER_ROLES}. */
export type RouterRole = (typeof ROUTER_ROLES)[number];

/** Whether `value` is one of {@link ROUTER_ROLES}. */
export function isRouterRole(value: unknown): value is RouterRole {
  return (ROUTER_ROLES as readonly unknown[]).includes(value);
}

/** How a router process runs; every group optional except the API's root key when it serves the API. */
export interface RouterOptions {
  /**
   * The roles this process takes; run several processes with different roles
   * to scale the API and the delivery workers apart.
   * @defaultValue every role
   */
  readonly roles?: readonly RouterRole[];
  /**
   * Interface the API listens on.
   * @defaultValue `'127.0.0.1'`
   */
  readonly host?: string;
  /**
   * Port the API listens on; `0` picks a free one.
   * @defaultValue 8080
   */
  readonly port?: number;
  /**
   * API tokens created at start when not stored yet, each for the client
   * named by what precedes its first `--` (`shop--5b0e…`: client `shop`),
   * as Routemaster reads `ROUTEMASTER_CLIENTS`; by the processes that serve
   * the API. A token deleted through the API comes back at the next start
   * while it is listed here.
   * @defaultValue none
   */
  readonly clients?: readonly string[];
  /** The HTTP API: root key, TLS, validation limits (`rootKey` is needed when the process serves the API). */
  readonly api?: Partial<ApiSettings>;
  /** How callbacks are reached: timeouts, CA bundle, TLS verification. */
  readonly sender?: WebhookSenderOptions;
  /** Delivery workers: concurrency, leases, backoff, when to give up. */
  readonly delivery?: Partial<Omit<DeliverySettings, 'backoff'>> & {
    readonly backoff?: Partial<DeliveryBackoff>;
  };
  /** The upkeep loops: promotion, lease recovery, autodrop marks. */
  readonly upkeep?: Partial<UpkeepSettings>;
}
