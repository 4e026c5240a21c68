export { OutboxNotConfiguredError } from './outbox-not-configured.error.js';
