import type { DataSource, EntityManager } from 'typeorm';
import { describeError } from '../support/logger.js';
import { OrderingNotConfiguredError } from './errors/ordering-not-configured.error.js';
import { OrderKeyRecordEntity } from './order-key-record.entity.js';

/**
 * Gives ordered events their positions inside a unit of work's transaction.
 * One statement bumps the row of every key (in key order, so two units of
 * work never wait on each other's keys crosswise): the row lock makes a
 * second unit of work on the same key wait until the first commits, so
 * positions follow commit order, and a rollback gives its positions back.
 */
export class OrderPositions {
  private sql: string | undefined;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Reserves `count` positions per key in `manager`'s transaction; resolves to
   * the first reserved position of each key.
   */
  async reserve(manager: EntityManager, counts: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const keys = [...counts.keys()].sort();
    const params: unknown[] = [];
    const { driver } = this.dataSource;
    const tuples = keys.map((key) => {
      const first = params.length;
      params.push(key, counts.get(key));
      return `(${driver.createParameter(`p${first}`, first)}, ${driver.createParameter(`p${first + 1}`, first + 1)})`;
    });
    let rows: { order_key: string; last_position: string | number }[];
    try {
      rows = await manager.query(
        `${this.statement()[0]} ${tuples.join(', ')} ${this.statement()[1]}`,
        params,
      );
    } catch (error) {
      if (
        /commitbus_order_keys/.test(describeError(error).message) &&
        /exist|no such table/i.test(describeError(error).message)
      ) {
        throw new OrderingNotConfiguredError('the commitbus_order_keys table does not exist', {
          cause: error,
        });
      }
      throw error;
    }
    const first = new Map<string, number>();
    for (const row of rows) {
      first.set(row.order_key, Number(row.last_position) - (counts.get(row.order_key) ?? 0) + 1);
    }
    return first;
  }

  private statement(): [string, string] {
    if (!this.dataSource.hasMetadata(OrderKeyRecordEntity)) {
      throw new OrderingNotConfiguredError('the DataSource does not know the commitbus_order_keys entity');
    }
    if (this.sql === undefined) {
      const metadata = this.dataSource.getMetadata(OrderKeyRecordEntity);
      const { driver } = this.dataSource;
      this.sql = metadata.tablePath
        .split('.')
        .map((part) => driver.escape(part))
        .join('.');
    }
    const table = this.sql;
    return [
      `INSERT INTO ${table} (order_key, last_position) VALUES`,
      `ON CONFLICT (order_key) DO UPDATE SET last_position = ${table}.last_position + excluded.last_position RETURNING order_key, last_position`,
    ];
  }
}
