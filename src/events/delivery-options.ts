import { InvalidDeliveryOptionsError } from './errors/invalid-delivery-options.error.js';
/** When a published event may be handled. Give at most one of the two. */
export interface DeliveryOptions {
  /** Handle no earlier than this many milliseconds after publishing (after commit, in a unit of work). */
  readonly delay?: number;
  /** Handle no earlier than this time. */
  readonly delayUntil?: Date;
  /**
   * Orders this one event under a key, as a class's `orderBy` would (and
   * instead of it): events with the same key are handled one at a time, in
   * commit order. Ordered events cannot be delayed.
   */
  readonly orderKey?: string;
}

/** The epoch milliseconds an event is due, or `undefined` for at once; throws on bad options. */
export function deliverAtOf(options: DeliveryOptions | undefined, now = Date.now()): number | undefined {
  if (options === undefined) return undefined;
  const { delay, delayUntil } = options;
  if (delay !== undefined && delayUntil !== undefined) {
    throw new InvalidDeliveryOptionsError('give either delay or delayUntil, not both');
  }
  if (delay !== undefined) {
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) {
      throw new InvalidDeliveryOptionsError(
        `delay must be a number of milliseconds >= 0, got ${String(delay)}`,
      );
    }
    return delay === 0 ? undefined : now + Math.ceil(delay);
  }
  if (delayUntil !== undefined) {
    if (!(delayUntil instanceof Date) || Number.isNaN(delayUntil.getTime())) {
      throw new InvalidDeliveryOptionsError(`delayUntil must be a valid Date, got ${String(delayUntil)}`);
    }
    return delayUntil.getTime() > now ? delayUntil.getTime() : undefined;
  }
  return undefined;
}
