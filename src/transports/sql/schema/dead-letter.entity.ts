import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_dead_letters`: one dead letter of one bus. */
export interface SqlDeadLetterRow {
  /** The bus's name. */
  bus: string;
  /** The letter's id. */
  id: string;
  /** Epoch ms when the work was given up. */
  deadAt: number;
  /** The handler given up, when there is one. */
  handler: string | null;
  /** The event's handling key, when the payload has one. */
  handlingKey: string | null;
  /** The event's id, when the payload has one. */
  eventId: string | null;
  /** What was given up. */
  kind: string | null;
  /** Why it was given up. */
  reason: string | null;
  /** The encoded letter (`encodeDeadLetter`). */
  data: string;
  /** The group the letter is counted in (`commitbus_dead_letter_counts`); `null` for a row written around the store. */
  countGroup: string | null;
}

/**
 * The `commitbus_dead_letters` table of the SQL transport: the columns
 * letters are filtered on, and the encoded letter. Part of `COMMITBUS_ENTITIES`.
 */
export const SqlDeadLetterEntity = new EntitySchema<SqlDeadLetterRow>({
  name: 'CommitbusSqlDeadLetter',
  tableName: 'commitbus_dead_letters',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    id: { name: 'id', type: 'varchar', length: 512, primary: true },
    deadAt: { name: 'dead_at', type: 'bigint', transformer: bigintAsNumber },
    handler: { name: 'handler', type: 'varchar', length: 255, nullable: true },
    handlingKey: { name: 'handling_key', type: 'varchar', length: 255, nullable: true },
    eventId: { name: 'event_id', type: 'varchar', length: 255, nullable: true },
    kind: { name: 'kind', type: 'varchar', length: 32, nullable: true },
    reason: { name: 'reason', type: 'varchar', length: 32, nullable: true },
    data: { name: 'data', type: 'text' },
    countGroup: { name: 'count_group', type: 'varchar', length: 600, nullable: true },
  },
  indices: [{ name: 'commitbus_dead_letters_dead_at', columns: ['bus', 'deadAt'] }],
});
