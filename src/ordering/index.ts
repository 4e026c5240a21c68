export { OrderingDisabledError } from './errors/ordering-disabled.error.js';
export { OrderingNotConfiguredError } from './errors/ordering-not-configured.error.js';
export { OrderingPositionsMismatchError } from './errors/ordering-positions-mismatch.error.js';
export { OrderingRebaseError } from './errors/ordering-rebase.error.js';
export type { HaltedKey } from './halted-key.js';
export type { OrderedKeys } from './ordered-keys.js';
export type { RebasedKey, RebasedKeys } from './rebased-key.js';
