export type { AttemptFailure } from './attempt-failure.js';
export { CorruptDeadLetterError } from './corrupt-dead-letter.error.js';
export type { DeadLetter, DeadLetterKind, DeadLetterReason } from './dead-letter.js';
export { DeadLetterRedriveError, type RedriveFailure } from './dead-letter-redrive.error.js';
export type { DeadLetterFilter } from './dead-letter-store.js';
export type { DeadLetters, DeadLetterTarget } from './dead-letters.js';
