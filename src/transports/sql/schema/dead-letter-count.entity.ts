import { EntitySchema } from 'typeorm';

/** A row of `commitbus_dead_letter_counts`: how many dead letters of one bus one group holds. */
export interface SqlDeadLetterCountRow {
  /** The bus's name. */
  bus: string;
  /**
   * The group (`groupOf`: `[handler or null, kind, reason]` as JSON), or
   * `dropped` for the letters the retention dropped so far (this row also
   * serializes the bus's dead-letter writes: each takes its lock first).
   */
  grp: string;
  /** How many. */
  count: number;
}

/**
 * The `commitbus_dead_letter_counts` table: the dead letters' counts by
 * group, kept in the transaction that writes or removes the letters. Part of
 * `COMMITBUS_ENTITIES`.
 */
export const SqlDeadLetterCountEntity = new EntitySchema<SqlDeadLetterCountRow>({
  name: 'CommitbusSqlDeadLetterCount',
  tableName: 'commitbus_dead_letter_counts',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    grp: { name: 'grp', type: 'varchar', length: 600, primary: true },
    count: { name: 'count', type: 'integer', default: 0 },
  },
});
