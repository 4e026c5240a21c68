export type { AttemptFailure } from './attempt-failure.js';
export type { DeadLetter, DeadLetterKind, DeadLetterReason } from './dead-letter.js';
export type { DeadLetterFilter } from './dead-letter-store.js';
export type { DeadLetters, DeadLetterTarget } from './dead-letters.js';
export { CorruptDeadLetterError } from './errors/corrupt-dead-letter.error.js';
export { DeadLetterFilterError } from './errors/dead-letter-filter.error.js';
export { DeadLetterRedriveError, type RedriveFailure } from './errors/dead-letter-redrive.error.js';
export { NoWebhookRedriverError } from './errors/no-webhook-redriver.error.js';
