import { peekEnvelope } from '../dead-letters/dead-letter.js';
import type { HaltedKey } from './halted-key.js';
import { type LaneOf, parseLane } from './lane.js';
import type { HaltedLane, OrderingStore } from './ordering-store.js';

/**
 * Operations on order keys, from any process of the bus (`bus.ordering`):
 * list the keys halted by a handler that gave up, and resume them.
 */
export class OrderedKeys {
  /**
   * @param store - the lanes.
   * @param failure - what an error of the store becomes for the caller (the transport's
   *   outage named with its server, as `bus.status()` does); by default the error as it is.
   */
  constructor(
    private readonly store: OrderingStore,
    private readonly failure: (action: string, error: unknown) => unknown = (_, error) => error,
  ) {}

  /** The halted keys, oldest halt first; one entry per halted lane (sync, or one async handler). */
  async halted(): Promise<HaltedKey[]> {
    try {
      return (await this.store.halted()).map(toHaltedKey);
    } catch (error) {
      throw this.failure('list the halted order keys', error);
    }
  }

  /**
   * Runs each halted lane of `key` again from the event it halted at, with
   * fresh attempts (fix the cause first); later events follow in order.
   * Resolves to how many lanes resumed (0 if the key was not halted).
   */
  async redrive(key: string): Promise<number> {
    try {
      return await this.store.resume('redrive', await this.lanesOf(key));
    } catch (error) {
      throw this.failure(`re-drive the order key ${key}`, error);
    }
  }

  /**
   * Gives up the failed handler of each halted lane of `key` for good (it is
   * kept as a dead letter) and goes on with the key's other handlers and
   * events. Resolves to how many lanes resumed.
   */
  async skip(key: string): Promise<number> {
    try {
      return await this.store.resume('skip', await this.lanesOf(key));
    } catch (error) {
      throw this.failure(`skip the order key ${key}`, error);
    }
  }

  /** Ordered events waiting in lanes (halted ones included). */
  pending(): Promise<number> {
    return this.store.pending();
  }

  private async lanesOf(key: string): Promise<string[]> {
    const lanes = (await this.store.halted()).map((h) => h.lane);
    return lanes.filter((lane) => parseLane(lane).key === key);
  }
}

function toHaltedKey(h: HaltedLane): HaltedKey {
  const lane: LaneOf = parseLane(h.lane);
  const peek = peekEnvelope(h.event.payload);
  const handler = lane.handler ?? h.why.handler;
  return {
    key: lane.key,
    lane: lane.handler === undefined ? 'sync' : 'async',
    ...(handler !== undefined ? { handler } : {}),
    ...peek,
    seq: h.event.seq,
    reason: h.why.reason,
    error: h.why.error,
    attempts: h.event.attemptsMade,
    haltedAt: h.haltedAt,
    waiting: h.waiting,
    payload: h.event.payload,
  };
}
