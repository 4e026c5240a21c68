import type { EntityManager } from 'typeorm';
import type { EventQueue } from './event-queue.js';
import { subscriptionFloor } from './subscriptions/prune-floor.js';

/** Which history rows to delete. Rows still queued are never deleted. */
export interface PruneOptions {
  /** Delete rows dispatched longer ago than this, in ms. */
  readonly olderThanMs?: number;
  /** Keep the rows of the latest `keepLast` versions handled (whatever their status: handled, skipped, ignored, rejected). @defaultValue 0 */
  readonly keepLast?: number;
  /** Keep rows dispatched with `important: true`. @defaultValue true */
  readonly keepImportant?: boolean;
}

/**
 * Deletes handled, skipped, ignored and rejected history rows matching `options`;
 * returns how many. A pruned history can no longer be replayed from v1.
 * Rows a durable subscription has not consumed yet are kept.
 */
export async function pruneHistory(
  queue: EventQueue,
  manager: EntityManager,
  options: PruneOptions,
): Promise<number> {
  const { tables } = queue;
  const { handled } = await queue.versions(manager);
  const floor = await subscriptionFloor(tables, manager);
  const params: unknown[] = [Math.min(handled - Math.max(0, options.keepLast ?? 0), floor)];
  const where = [`v <= ${tables.p(1)}`, `status <> 'queued'`];
  if (options.olderThanMs !== undefined) {
    params.push(Date.now() - options.olderThanMs);
    where.push(`ts < ${tables.p(params.length)}`);
  }
  if (options.keepImportant !== false)
    where.push(tables.dialect === 'postgres' ? 'important = false' : 'important = 0');
  const rows = await tables.rows<{ v: unknown }>(
    manager,
    `DELETE FROM ${tables.events} WHERE ${where.join(' AND ')} RETURNING v`,
    params,
  );
  return rows.length;
}
