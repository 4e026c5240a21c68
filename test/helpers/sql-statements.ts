import type { DataSource, EntitySubscriberInterface, Logger, QueryRunner } from 'typeorm';

/** One statement a DataSource sent, with the query runner (connection) it ran on. */
export interface RecordedStatement {
  /** The SQL text as the driver got it. */
  readonly sql: string;
  /** The query runner it ran on: a unit of work's is `uow.manager.queryRunner`. */
  readonly runner: QueryRunner | undefined;
}

/**
 * A TypeORM logger that records every statement its DataSource sends (TypeORM
 * calls `logQuery` for each one, whatever `logging` says), for tests that count
 * statements on the real database: give it as the DataSource's `logger`.
 */
export class StatementRecorder implements Logger {
  private readonly recorded: RecordedStatement[] = [];
  private readonly finished: string[] = [];

  /**
   * Also records when each statement of `dataSource` has its result (a
   * TypeORM subscriber's `afterQuery`): see {@link StatementRecorder.completed}.
   */
  attach(dataSource: DataSource): void {
    const subscriber: EntitySubscriberInterface = {
      afterQuery: (event) => void this.finished.push(event.query),
    };
    (dataSource.subscribers as EntitySubscriberInterface[]).push(subscriber);
  }

  /** How many statements matching `pattern` had their result, on the DataSources {@link attach}ed. */
  completed(pattern: RegExp): number {
    return this.finished.filter((sql) => pattern.test(sql)).length;
  }

  /** Every statement recorded since the last {@link StatementRecorder.clear}. */
  all(): readonly RecordedStatement[] {
    return this.recorded;
  }

  /** The statements `runner` ran, in order. */
  on(runner: QueryRunner | undefined): string[] {
    return this.recorded.filter((s) => s.runner === runner && runner !== undefined).map((s) => s.sql);
  }

  /** Forgets what was recorded. */
  clear(): void {
    this.recorded.length = 0;
  }

  logQuery(query: string, _parameters?: unknown[], queryRunner?: QueryRunner): void {
    this.recorded.push({ sql: query, runner: queryRunner });
  }

  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/**
 * How many of `statements` insert into `table` (schema-qualified or not,
 * quoted or not): an INSERT, or a statement with an INSERT in a CTE.
 */
export function insertsInto(statements: readonly string[], table: string): number {
  const pattern = new RegExp(`(?:^|\\s|\\()INSERT INTO\\s+(?:"?[\\w]+"?\\.)?"?${table}"?[\\s(]`, 'i');
  return statements.filter((sql) => pattern.test(sql)).length;
}
