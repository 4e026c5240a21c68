import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../schema/bigint-as-number.js';

/** One row of `commitbus_es_subscriptions`: a durable subscription's checkpoint and lease. */
export interface SubscriptionRow {
  /** The subscription's name (primary key). */
  name: string;
  /** The last version it consumed: it goes on at `position + 1`. */
  position: number;
  /** `active`, or `halted` after its handler failed `maxAttempts` times (or history it needs was pruned). */
  status: string;
  /** Failed attempts of the event at `position + 1`. */
  attempts: number;
  /** The last failure as JSON (`SubscriptionFailure`), or null. */
  error: string | null;
  /** The process consuming it while its lease runs, or null. */
  owner: string | null;
  /** Epoch ms the owner's lease runs to, or null. */
  leaseUntil: number | null;
  /** Epoch ms of the last change. */
  updatedAt: number;
}

/**
 * The `commitbus_es_subscriptions` table: one checkpoint per durable
 * subscription, leased by the one process consuming it. Part of
 * `COMMITBUS_ENTITIES`.
 */
export const SubscriptionRowEntity = new EntitySchema<SubscriptionRow>({
  name: 'CommitbusStoreSubscription',
  tableName: 'commitbus_es_subscriptions',
  columns: {
    name: { name: 'name', type: 'varchar', length: 128, primary: true },
    position: { name: 'position', type: 'bigint', transformer: bigintAsNumber },
    status: { name: 'status', type: 'varchar', length: 16 },
    attempts: { name: 'attempts', type: 'integer' },
    error: { name: 'error', type: 'text', nullable: true },
    owner: { name: 'owner', type: 'varchar', length: 128, nullable: true },
    leaseUntil: { name: 'lease_until', type: 'bigint', nullable: true, transformer: bigintAsNumber },
    updatedAt: { name: 'updated_at', type: 'bigint', transformer: bigintAsNumber },
  },
});
