import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_operator_actions`: one operator action of one bus. */
export interface SqlOperatorActionRow {
  /** Its id, increasing. */
  id: number;
  /** The bus's name. */
  bus: string;
  /** When it was stored, epoch ms on the database's clock. */
  at: number;
  /** Who asked for it. */
  actor: string;
  /** From where: `cli`, `dashboard`, `api`. */
  source: string;
  /** What: `dead-letters.redrive`, `rules.pause`, ... */
  action: string;
  /** What it acted on. */
  target: string;
  /** How many things it changed, or null. */
  count: number | null;
}

/** The `commitbus_operator_actions` table: a bus's audit trail, the newest `audit.maxEntries` kept. Part of `COMMITBUS_ENTITIES`. */
export const SqlOperatorActionEntity = new EntitySchema<SqlOperatorActionRow>({
  name: 'CommitbusSqlOperatorAction',
  tableName: 'commitbus_operator_actions',
  columns: {
    id: { name: 'id', type: 'integer', primary: true, generated: 'increment' },
    bus: { name: 'bus', type: 'varchar', length: 255 },
    at: { name: 'at', type: 'bigint', transformer: bigintAsNumber },
    actor: { name: 'actor', type: 'varchar', length: 255 },
    source: { name: 'source', type: 'varchar', length: 16 },
    action: { name: 'action', type: 'varchar', length: 64 },
    target: { name: 'target', type: 'text' },
    count: { name: 'count', type: 'integer', nullable: true },
  },
  indices: [{ name: 'commitbus_operator_actions_bus', columns: ['bus', 'id'] }],
});
