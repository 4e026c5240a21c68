export { CreateCommitbusHandled1763700000001 } from './create-handled-table.migration.js';
export { type HandledEvent, HandledEventEntity } from './handled-event.entity.js';
export { IdempotencyNotConfiguredError } from './idempotency-not-configured.error.js';
export { type IdempotentOutcome, IdempotentRunner } from './idempotent-runner.js';
