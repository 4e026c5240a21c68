export { IdempotencyNotConfiguredError } from './idempotency-not-configured.error.js';
