import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_locks`: a named lock of one bus, held until `until`. */
export interface SqlLockRow {
  /** The bus's name. */
  bus: string;
  /** What the lock guards (`release:<handler>`). */
  name: string;
  /** A token of the holder. */
  holder: string;
  /** Epoch ms (database clock) when the lock lapses. */
  until: number;
}

/** The `commitbus_locks` table of leased locks. Part of `COMMITBUS_ENTITIES`. */
export const SqlLockEntity = new EntitySchema<SqlLockRow>({
  name: 'CommitbusSqlLock',
  tableName: 'commitbus_locks',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    name: { name: 'name', type: 'varchar', length: 512, primary: true },
    holder: { name: 'holder', type: 'varchar', length: 64 },
    until: { name: 'until', type: 'bigint', transformer: bigintAsNumber },
  },
});
