/**
 * What the per-key ordering suites (`ordering-*.test.ts`) share: the ordered
 * and unordered event classes, a record of what the handlers saw, and per
 * transport the config and buses of a test under the file's own prefix.
 */
import type { CommitbusOptions, EventBus, EventHandlersConfig, RunningWorker } from '../../src/index.js';
import { Event, EventType } from '../../src/index.js';
import { fastConfig } from '../helpers/buses.js';
import type { RedisTestBed } from '../helpers/redis-test-bed.js';
import { type TransportName, testTransport } from '../helpers/transports.js';

/** Ordered by item (`item:<n>`); halts a key after the last attempt (the default). */
@EventType('ITEM.CHANGE', { orderBy: (e: ItemChanged) => `item:${e.item}` })
export class ItemChanged extends Event {
  item!: number;
  n!: number;
}

/** Ordered by item (`ledger:<n>`); skips past a given-up handler (`afterLastAttempt: 'skip'`). */
@EventType('LEDGER.ENTRY', { orderBy: (e: LedgerEntry) => `ledger:${e.item}`, afterLastAttempt: 'skip' })
export class LedgerEntry extends Event {
  item!: number;
  n!: number;
}

/** Not ordered unless published with an `orderKey`. */
@EventType('NOTE.ADD')
export class NoteAdded extends Event {
  item!: number;
  n!: number;
}

/** The event classes of the ordering suites. */
export const EVENTS = [ItemChanged, LedgerEntry, NoteAdded];

/** Resolves after `ms`. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the handlers saw, per order key: `n`, seq and prev, in handling order. */
export class Seen {
  readonly runs: { handler: string; key: string; n: number; seq?: number; prev?: number }[] = [];

  /** Records that `handler` handled `event` now. */
  record(handler: string, event: ItemChanged | LedgerEntry | NoteAdded): void {
    const o = event.ordering;
    this.runs.push({
      handler,
      key: o?.key ?? '',
      n: event.n,
      ...(o !== undefined ? { seq: o.seq } : {}),
      ...(o?.prev !== undefined ? { prev: o.prev } : {}),
    });
  }

  /** The runs of `handler` for order key `key` (`''`: unordered), in handling order. */
  of(handler: string, key: string) {
    return this.runs.filter((r) => r.handler === handler && r.key === key);
  }

  /** The `n` of each run of `handler` for `key`, in handling order. */
  ns(handler: string, key: string): number[] {
    return this.of(handler, key).map((r) => r.n);
  }
}

/** `from`, `from + 1`, ..., `to`. */
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The helpers of a `describe.each(TRANSPORT_NAMES)` block, on one transport. */
export interface OnTransport {
  /** A fast test config under the bed's prefix, with a bus name of its own each call. */
  config(overrides?: CommitbusOptions): CommitbusOptions;
  /** Starts a bus with a worker on {@link EVENTS} and `handlers` (closed after the test). */
  start(
    handlers: EventHandlersConfig,
    overrides?: CommitbusOptions,
  ): Promise<{ bus: EventBus; worker: RunningWorker }>;
}

/** The helpers of {@link OnTransport} for `transport` on `bed` (a file's `redisTestBed`). */
export function onTransport(bed: RedisTestBed, transport: TransportName): OnTransport {
  let buses = 0;
  const config = (overrides = {}) =>
    fastConfig({
      prefix: bed.prefix,
      name: `${transport}${++buses}`,
      delayedPollMs: 20,
      ...overrides,
    });

  async function start(handlers: EventHandlersConfig, overrides = {}) {
    return bed.buses.start({
      events: EVENTS,
      handlers,
      config: config(overrides),
      transport: testTransport(transport),
    });
  }

  return { config, start };
}
