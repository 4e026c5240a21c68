import type { EntitySchema, MigrationInterface } from 'typeorm';
import { CreateCommitbusEventStore1764100000000 } from '../event-store/schema/create-event-store-tables.migration.js';
import { CreateCommitbusEsSubscriptions1764200000000 } from '../event-store/schema/create-subscriptions-table.migration.js';
import { StoreEventRowEntity } from '../event-store/schema/store-event-row.entity.js';
import { StoreStateRowEntity } from '../event-store/schema/store-state-row.entity.js';
import { SubscriptionRowEntity } from '../event-store/schema/subscription-row.entity.js';
import { CreateCommitbusHandled1763700000001 } from '../idempotency/create-handled-table.migration.js';
import { HandledEventEntity } from '../idempotency/handled-event.entity.js';
import { CreateCommitbusOrderKeys1763900000000 } from '../ordering/create-order-keys-table.migration.js';
import { OrderKeyRecordEntity } from '../ordering/order-key-record.entity.js';
import { AddCommitbusOutboxOrder1764000000000 } from '../outbox/add-outbox-order-columns.migration.js';
import { CreateCommitbusOutbox1763700000000 } from '../outbox/create-outbox-table.migration.js';
import { OutboxRecordEntity } from '../outbox/outbox-record.entity.js';
import { SQL_TRANSPORT_ENTITIES, SQL_TRANSPORT_MIGRATIONS } from '../transports/sql/schema/sql-tables.js';

/**
 * The tables commitbus keeps in your database. Spread into your DataSource's
 * `entities`: `entities: [...MY_ENTITIES, ...COMMITBUS_ENTITIES]`.
 */
// biome-ignore lint/suspicious/noExplicitAny: TypeORM takes schemas of any row type
export const COMMITBUS_ENTITIES: readonly EntitySchema<any>[] = Object.freeze([
  OutboxRecordEntity,
  HandledEventEntity,
  OrderKeyRecordEntity,
  StoreEventRowEntity,
  StoreStateRowEntity,
  SubscriptionRowEntity,
  ...SQL_TRANSPORT_ENTITIES,
]);

/**
 * Migrations creating those tables, oldest first. Spread into your
 * DataSource's `migrations` and run them with your own.
 */
export const COMMITBUS_MIGRATIONS: readonly (new () => MigrationInterface)[] = Object.freeze([
  CreateCommitbusOutbox1763700000000,
  CreateCommitbusHandled1763700000001,
  CreateCommitbusOrderKeys1763900000000,
  AddCommitbusOutboxOrder1764000000000,
  CreateCommitbusEventStore1764100000000,
  CreateCommitbusEsSubscriptions1764200000000,
  ...SQL_TRANSPORT_MIGRATIONS,
]);
