import { peekEnvelope } from '../dead-letters/dead-letter.js';
import type { OperatorOrigin } from '../support/operator-action-log.js';
import type { OperatorAudit } from '../support/operator-audit.js';
import { OrderingRebaseError } from './errors/ordering-rebase.error.js';
import type { HaltedKey } from './halted-key.js';
import { type LaneOf, parseLane, syncLane } from './lane.js';
import type { LaneRebase } from './lane-rebase.js';
import type { HaltedLane, OrderingStore } from './ordering-store.js';
import type { RebasedKey, RebasedKeys } from './rebased-key.js';

/**
 * Operations on order keys, from any process of the bus (`bus.ordering`):
 * list the keys halted by a handler that gave up, and resume them; re-base a
 * key whose lane waits for a position that will never come, and list the
 * re-bases. Each re-drive, skip and re-base is recorded in `bus.audit`
 * (`ordering.redrive`, ...) with `by` (who asks; by default source `api`,
 * this process's `user@host`), the key, and the lanes resumed (a re-base: 1).
 */
export class OrderedKeys {
  /**
   * @param store - the lanes.
   * @param failure - what an error of the store becomes for the caller (the transport's
   *   outage named with its server, as `bus.status()` does); by default the error as it is.
   * @param audit - where operator actions are recorded; none, nothing is.
   */
  constructor(
    private readonly store: OrderingStore,
    private readonly failure: (action: string, error: unknown) => unknown = (_, error) => error,
    private readonly audit?: OperatorAudit,
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
  redrive(key: string, by?: OperatorOrigin): Promise<number> {
    return this.audited(
      'redrive',
      key,
      by,
      (n) => n,
      () => this.resume('redrive', key),
    );
  }

  /**
   * Gives up the failed handler of each halted lane of `key` for good (it is
   * kept as a dead letter) and goes on with the key's other handlers and
   * events. Resolves to how many lanes resumed.
   */
  skip(key: string, by?: OperatorOrigin): Promise<number> {
    return this.audited(
      'skip',
      key,
      by,
      (n) => n,
      () => this.resume('skip', key),
    );
  }

  /**
   * Re-bases `key` on purpose: its sync lane stops waiting for the position
   * it is at and goes on from `position`, by default the first position it
   * holds (at once, rather than after the gap wait), say after Redis lost its
   * data. Throws {@link OrderingRebaseError} when the lane has an event in
   * hand (running, retrying or halted: use `redrive` or `skip`), holds nothing
   * and no position is given, `position` would skip an event it holds, or
   * `position` is below the one the lane is at (handled already: republished
   * copies would run again) or, on a bus without an outbox, past the position
   * the key's next event gets. An event of a skipped position that is
   * published afterwards becomes a dead letter `skipped-by-rebase`.
   */
  rebase(key: string, options: { position?: number } = {}, by?: OperatorOrigin): Promise<RebasedKey> {
    return this.audited(
      'rebase',
      key,
      by,
      () => 1,
      () => this.rebaseNow(key, options),
    );
  }

  private async rebaseNow(key: string, { position }: { position?: number }): Promise<RebasedKey> {
    if (position !== undefined && (!Number.isSafeInteger(position) || position < 1)) {
      throw new OrderingRebaseError(key, `position must be a whole number from 1, got ${position}`);
    }
    const reply = await this.store.rebase(syncLane(key), position);
    switch (reply.status) {
      case 'ok':
        return { key, from: reply.from, to: reply.to, why: 'operator', rebasedAt: new Date() };
      case 'busy':
        throw new OrderingRebaseError(
          key,
          `its lane has the event at position ${reply.position} in hand (running, waiting for a retry, or halted): let it finish, or resume it with bus.ordering.redrive or skip`,
        );
      case 'above':
        throw new OrderingRebaseError(
          key,
          `position ${position} would skip the event the lane holds at position ${reply.first}: give a position up to ${reply.first}, or none`,
        );
      case 'below':
        throw new OrderingRebaseError(
          key,
          `position ${position} is below position ${reply.next}, where the lane is: the positions before it were handled, and a republished copy of one would run again; give a position from ${reply.next}`,
        );
      case 'beyond':
        throw new OrderingRebaseError(
          key,
          `position ${position} is past position ${reply.next}, the one the key's next event gets (the transport numbers them, with no outbox): the events numbered before it would be dropped; give a position up to ${reply.next}`,
        );
      case 'unknown':
        throw new OrderingRebaseError(
          key,
          'it has no lane (no event of it was seen yet, or Redis lost its state) and holds nothing: there is nothing to re-base; its lane goes on from the first event that arrives (after the gap wait), or re-base it once one has',
        );
      case 'empty':
        throw new OrderingRebaseError(
          key,
          'its lane holds no event to go on from: give the position its next event will have ({ position })',
        );
    }
  }

  /** How many times keys were re-based (on their own or on purpose), and the newest `limit` keys' last re-bases. */
  async rebased(limit = 100): Promise<RebasedKeys> {
    const log = await this.store.rebased(limit);
    return { count: log.count, recent: log.recent.map(toRebasedKey) };
  }

  /** Ordered events waiting in lanes (halted ones included). */
  pending(): Promise<number> {
    return this.store.pending();
  }

  private async resume(how: 'redrive' | 'skip', key: string): Promise<number> {
    try {
      return await this.store.resume(how, await this.lanesOf(key));
    } catch (error) {
      throw this.failure(`${how === 'skip' ? 'skip' : 're-drive'} the order key ${key}`, error);
    }
  }

  private audited<T>(
    verb: string,
    key: string,
    by: OperatorOrigin | undefined,
    countOf: (result: T) => number | null,
    work: () => Promise<T>,
  ): Promise<T> {
    if (this.audit === undefined) return work();
    return this.audit.run({ action: `ordering.${verb}`, target: key, by, countOf }, work);
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

function toRebasedKey(r: LaneRebase): RebasedKey {
  return { key: parseLane(r.lane).key, from: r.from, to: r.to, why: r.why, rebasedAt: new Date(r.at) };
}
