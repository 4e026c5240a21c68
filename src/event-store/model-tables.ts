import type { DataSource } from 'typeorm';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { ResolvedModel } from './resolved-model.js';

/**
 * Checks, when a store starts, that every model's table exists, so a
 * missing one is said at once instead of halting the first event that
 * writes it.
 */
export async function checkModelTables(
  dataSource: DataSource,
  models: readonly ResolvedModel[],
): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    for (const model of models) {
      if (!(await runner.hasTable(model.metadata.tablePath))) {
        throw new EventStoreUsageError(
          `model "${model.name}"'s table "${model.metadata.tablePath}" does not exist: create it (a migration of yours, or synchronize) before store.start()`,
        );
      }
    }
  } finally {
    await runner.release();
  }
}
