export { OutboxNotConfiguredError } from './errors/outbox-not-configured.error.js';
