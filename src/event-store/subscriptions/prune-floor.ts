import type { EntityManager } from 'typeorm';
import { SubscriptionRowEntity } from '../schema/subscription-row.entity.js';
import type { StoreTables } from '../store-tables.js';

/**
 * The lowest checkpoint of any durable subscription, halted ones included:
 * pruning keeps every history row after it. `Infinity` when there is no
 * subscription, or no `commitbus_es_subscriptions` table (looked up beside
 * the events table whether or not this DataSource registers the entity, so
 * a process without it cannot prune what another process's subscription
 * still needs).
 */
export async function subscriptionFloor(tables: StoreTables, manager: EntityManager): Promise<number> {
  const { dataSource } = tables;
  const path = dataSource.hasMetadata(SubscriptionRowEntity)
    ? dataSource.getMetadata(SubscriptionRowEntity).tablePath
    : tables.path.replace(/commitbus_es_events$/, 'commitbus_es_subscriptions');
  const parts = path.split('.');
  const table = parts.at(-1) as string;
  const exists =
    tables.dialect === 'postgres'
      ? await tables.rows(
          manager,
          `SELECT 1 FROM information_schema.tables WHERE table_name = $1 AND table_schema = ${parts.length > 1 ? '$2' : 'current_schema()'}`,
          parts.length > 1 ? [table, parts[0]] : [table],
        )
      : await tables.rows(manager, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [table]);
  if (exists.length === 0) return Number.POSITIVE_INFINITY;
  const quoted = parts.map((part) => dataSource.driver.escape(part)).join('.');
  const [row] = await tables.rows<{ floor: string | number | null }>(
    manager,
    `SELECT MIN(position) AS floor FROM ${quoted}`,
  );
  return row?.floor === null || row?.floor === undefined ? Number.POSITIVE_INFINITY : Number(row.floor);
}
