import { EntitySchema } from 'typeorm';

/** A row of `commitbus_dropped`: runs of one handler dropped by block rules. */
export interface SqlDroppedRow {
  /** The bus's name. */
  bus: string;
  /** The handler. */
  handler: string;
  /** Runs dropped so far. */
  count: number;
}

/** The `commitbus_dropped` table of dropped-run counts. Part of `COMMITBUS_ENTITIES`. */
export const SqlDroppedEntity = new EntitySchema<SqlDroppedRow>({
  name: 'CommitbusSqlDropped',
  tableName: 'commitbus_dropped',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    handler: { name: 'handler', type: 'varchar', length: 255, primary: true },
    count: { name: 'count', type: 'integer', default: 0 },
  },
});
