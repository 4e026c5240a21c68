export type { AttemptFailure } from './attempt-failure.js';
export type { DeadLetter, DeadLetterKind, DeadLetterReason } from './dead-letter.js';
export { DeadLetterRedriveError, type RedriveFailure } from './dead-letter-redrive.error.js';
export type { DeadLetterFilter, DeadLetterStore, DeadLetterVersion } from './dead-letter-store.js';
export { DeadLetters, type DeadLetterTarget } from './dead-letters.js';
