/**
 * One place per default: `DEFAULTS` holds the bus's options and, beside them,
 * the router's and the event store's groups, and those groups are the very
 * objects the router and the event store use. `DEFAULT_CONFIG` is the bus's
 * part only, so no environment variable is derived for the router's or the
 * event store's settings.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { DeliveredStatus } from '../../src/config/event-store-option-groups.js';
import { optionLeaves } from '../../src/config/option-env.js';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { EVENT_STORE_DEFAULTS, SUBSCRIPTION_DEFAULTS } from '../../src/event-store/index.js';
import type { StoreEventStatus } from '../../src/event-store/store-event.js';
import { DEFAULT_CONFIG, DEFAULTS } from '../../src/index.js';
import {
  API_DEFAULTS,
  DEFAULT_DELIVERY_BACKOFF,
  DEFAULT_DELIVERY_SETTINGS,
  DEFAULT_UPKEEP_SETTINGS,
  SUBSCRIBER_DEFAULTS,
} from '../../src/router/index.js';

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('DEFAULTS', () => {
  it("holds the router's groups, the very objects the router uses", () => {
    expect(DEFAULT_DELIVERY_SETTINGS).toBe(DEFAULTS.router.delivery);
    expect(DEFAULT_DELIVERY_BACKOFF).toBe(DEFAULTS.router.delivery.backoff);
    expect(DEFAULT_UPKEEP_SETTINGS).toBe(DEFAULTS.router.upkeep);
    expect(API_DEFAULTS).toBe(DEFAULTS.router.api);
    expect(SUBSCRIBER_DEFAULTS).toBe(DEFAULTS.router.subscriber);
  });

  it("holds the event store's, its subscriptions' beside them", () => {
    const { subscription, ...store } = DEFAULTS.eventStore;
    expect(SUBSCRIPTION_DEFAULTS).toBe(subscription);
    expect(EVENT_STORE_DEFAULTS).toEqual(store);
    expect(EVENT_STORE_DEFAULTS).not.toHaveProperty('subscription');
    expect(Object.isFrozen(EVENT_STORE_DEFAULTS)).toBe(true);
  });

  it("has DEFAULT_CONFIG as its bus part: the same groups, no router's or event store's", () => {
    const { router, eventStore, ...bus } = DEFAULTS;
    expect(router).toBeDefined();
    expect(eventStore).toBeDefined();
    expect(DEFAULT_CONFIG).toEqual(bus);
    expect(DEFAULT_CONFIG).not.toHaveProperty('router');
    expect(DEFAULT_CONFIG).not.toHaveProperty('eventStore');
    for (const [group, value] of Object.entries(bus)) {
      if (typeof value === 'object' && value !== null) expect(DEFAULT_CONFIG).toHaveProperty([group], value);
    }
    expect(DEFAULT_CONFIG.drains).toBe(DEFAULTS.drains);
    expect(resolveOptions({})).toEqual(DEFAULT_CONFIG);
  });

  it("derives no environment variable from the router's or the event store's groups", () => {
    const paths = optionLeaves().map((leaf) => leaf.path);
    expect(paths.filter((p) => p.startsWith('router.') || p.startsWith('eventStore.'))).toEqual([]);
    expect(paths).toHaveLength(42);
  });

  it('is frozen all the way down, and so is DEFAULT_CONFIG', () => {
    expect(isDeepFrozen(DEFAULTS)).toBe(true);
    expect(isDeepFrozen(DEFAULT_CONFIG)).toBe(true);
  });

  it("keeps DeliveredStatus (written out in config) every stored event's status but 'queued'", () => {
    expectTypeOf<DeliveredStatus>().toEqualTypeOf<Exclude<StoreEventStatus, 'queued'>>();
  });
});
