import { InvalidOrderKeyError } from './errors/invalid-order-key.error.js';

/** Longest order key, in characters. */
export const MAX_ORDER_KEY_LENGTH = 512;

/** Returns `key` if it is a usable order key, else throws {@link InvalidOrderKeyError}. */
export function checkOrderKey(key: unknown, eventKey: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_ORDER_KEY_LENGTH) {
    throw new InvalidOrderKeyError(key, eventKey, MAX_ORDER_KEY_LENGTH);
  }
  return key;
}
