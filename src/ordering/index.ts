export type { HaltedKey } from './halted-key.js';
export type { OrderedKeys } from './ordered-keys.js';
export { OrderingDisabledError } from './ordering-disabled.error.js';
export { OrderingNotConfiguredError } from './ordering-not-configured.error.js';
export { OrderingPositionsMismatchError } from './ordering-positions-mismatch.error.js';
