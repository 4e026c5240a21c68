export { IdempotencyNotConfiguredError } from './errors/idempotency-not-configured.error.js';
