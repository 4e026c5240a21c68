import { EntitySchema } from 'typeorm';

/** A row of `commitbus_parked`: one item of parked work, in parking order by `id`. */
export interface SqlParkedRow {
  /** Increasing: the parking order. */
  id: number;
  /** The bus's name. */
  bus: string;
  /** The handler the work is parked for. */
  handler: string;
  /** The `ParkedWork` as JSON. */
  data: string;
}

/** The `commitbus_parked` table of work held back by pause rules. Part of `COMMITBUS_ENTITIES`. */
export const SqlParkedEntity = new EntitySchema<SqlParkedRow>({
  name: 'CommitbusSqlParked',
  tableName: 'commitbus_parked',
  columns: {
    id: { name: 'id', type: 'integer', primary: true, generated: 'increment' },
    bus: { name: 'bus', type: 'varchar', length: 255 },
    handler: { name: 'handler', type: 'varchar', length: 255 },
    data: { name: 'data', type: 'text' },
  },
  indices: [{ name: 'commitbus_parked_handler', columns: ['bus', 'handler', 'id'] }],
});
