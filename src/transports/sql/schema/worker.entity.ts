import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/** A row of `commitbus_workers`: the last beat of one worker of one bus. */
export interface SqlWorkerRow {
  /** The bus's name. */
  bus: string;
  /** The worker's id. */
  id: string;
  /** The host it runs on. */
  host: string;
  /** Its process id. */
  pid: number;
  /** The commitbus version it runs. */
  version: string;
  /** Its transport's name. */
  transport: string;
  /** Async handler jobs it runs at once. */
  concurrency: number;
  /** Handler runs under way at its last beat. */
  busy: number;
  /** When it started, epoch ms. */
  startedAt: number;
  /** When its last beat was stored, epoch ms on the database's clock. */
  lastBeatAt: number;
}

/** The `commitbus_workers` table of workers' beats. Part of `COMMITBUS_ENTITIES`. */
export const SqlWorkerEntity = new EntitySchema<SqlWorkerRow>({
  name: 'CommitbusSqlWorker',
  tableName: 'commitbus_workers',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    id: { name: 'id', type: 'varchar', length: 255, primary: true },
    host: { name: 'host', type: 'varchar', length: 255 },
    pid: { name: 'pid', type: 'integer' },
    version: { name: 'version', type: 'varchar', length: 64 },
    transport: { name: 'transport', type: 'varchar', length: 64 },
    concurrency: { name: 'concurrency', type: 'integer' },
    busy: { name: 'busy', type: 'integer' },
    startedAt: { name: 'started_at', type: 'bigint', transformer: bigintAsNumber },
    lastBeatAt: { name: 'last_beat_at', type: 'bigint', transformer: bigintAsNumber },
  },
});
