import type {
  NewOperatorAction,
  OperatorAction,
  OperatorActionLog,
  OperatorActionQuery,
  OperatorSource,
} from '../../support/operator-action-log.js';
import { checkedQuery } from '../../support/operator-action-query.js';
import { SqlOperatorActionEntity } from './schema/operator-action.entity.js';
import type { SqlDb } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/** A row as the driver returns it (bigints as strings on PostgreSQL). */
interface ActionRow {
  id: number | string;
  at: number | string;
  actor: string;
  source: string;
  action: string;
  target: string;
  count: number | string | null;
}

/** An id of the table: a whole number. */
const ROW_ID = /^\d{1,15}$/;

/**
 * `OperatorActionLog` on `commitbus_operator_actions`: an append inserts a
 * row stamped with the database's clock ({@link SqlDb.now}) and deletes the
 * bus's rows beyond the newest `maxEntries`; ids increase, so newest first
 * is by id.
 */
export class SqlOperatorActionLog implements OperatorActionLog {
  /** @param maxEntries - how many actions are kept (`audit.maxEntries`). */
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
    private readonly maxEntries: number,
  ) {}

  async append(action: NewOperatorAction): Promise<OperatorAction> {
    const table = sqlTableName(this.db, SqlOperatorActionEntity);
    const [row] = await this.db.query<ActionRow>(
      `INSERT INTO ${table} (bus, at, actor, source, action, target, count)
       VALUES (?, ${this.db.now}, ?, ?, ?, ?, ?)
       RETURNING id, at, actor, source, action, target, count`,
      [this.bus, action.actor, action.source, action.action, action.target, action.count],
    );
    await this.db.execute(
      `DELETE FROM ${table} WHERE bus = ? AND id <= (
         SELECT id FROM ${table} WHERE bus = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
      [this.bus, this.bus, this.maxEntries],
    );
    return decodeAction(row as ActionRow);
  }

  async list(query: OperatorActionQuery = {}): Promise<OperatorAction[]> {
    const { limit, before } = checkedQuery(query, ROW_ID);
    const table = sqlTableName(this.db, SqlOperatorActionEntity);
    const rows = await this.db.query<ActionRow>(
      `SELECT id, at, actor, source, action, target, count FROM ${table}
       WHERE bus = ?${before === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?`,
      before === undefined ? [this.bus, limit] : [this.bus, Number(before), limit],
    );
    return rows.map(decodeAction);
  }

  async count(): Promise<number> {
    const table = sqlTableName(this.db, SqlOperatorActionEntity);
    const [row] = await this.db.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM ${table} WHERE bus = ?`,
      [this.bus],
    );
    return Number(row?.n ?? 0);
  }
}

function decodeAction(row: ActionRow): OperatorAction {
  return {
    id: String(row.id),
    at: new Date(Number(row.at)),
    actor: row.actor,
    source: row.source as OperatorSource,
    action: row.action,
    target: row.target,
    count: row.count === null ? null : Number(row.count),
  };
}
