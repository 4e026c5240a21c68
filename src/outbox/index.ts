export { CreateCommitbusOutbox1763700000000 } from './create-outbox-table.migration.js';
export { Outbox, type OutboxEntry, type OutboxSettings } from './outbox.js';
export { OutboxNotConfiguredError } from './outbox-not-configured.error.js';
export { type OutboxRecord, OutboxRecordEntity } from './outbox-record.entity.js';
export { OutboxRelay, type OutboxRelaySettings } from './outbox-relay.js';
