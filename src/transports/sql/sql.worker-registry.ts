import type { WorkerBeat, WorkerList, WorkerRegistry } from '../../handlers/worker-registry.js';
import { SqlWorkerEntity } from './schema/worker.entity.js';
import type { SqlDb } from './sql-db.js';
import { sqlTableName } from './sql-table-name.js';

/** A row as the driver returns it (bigints as strings on PostgreSQL). */
interface WorkerRow {
  id: string;
  host: string;
  pid: number | string;
  version: string;
  transport: string;
  concurrency: number | string;
  busy: number | string;
  started_at: number | string;
  last_beat_at: number | string;
}

/**
 * `WorkerRegistry` on `commitbus_workers`: a beat is one upsert stamping
 * `last_beat_at` with the database's clock ({@link SqlDb.now}); a list
 * deletes the rows past the retention, then reads the rest with the clock.
 */
export class SqlWorkerRegistry implements WorkerRegistry {
  constructor(
    readonly db: SqlDb,
    readonly bus: string,
  ) {}

  async beat(worker: WorkerBeat): Promise<void> {
    const table = sqlTableName(this.db, SqlWorkerEntity);
    await this.db.execute(
      `INSERT INTO ${table} AS t (bus, id, host, pid, version, transport, concurrency, busy, started_at, last_beat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ${this.db.now})
       ON CONFLICT (bus, id) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
         transport = excluded.transport, concurrency = excluded.concurrency, busy = excluded.busy,
         started_at = excluded.started_at, last_beat_at = excluded.last_beat_at`,
      [
        this.bus,
        worker.id,
        worker.host,
        worker.pid,
        worker.version,
        worker.transport,
        worker.concurrency,
        worker.busy,
        worker.startedAt.getTime(),
      ],
    );
  }

  async leave(id: string): Promise<void> {
    const table = sqlTableName(this.db, SqlWorkerEntity);
    await this.db.execute(`DELETE FROM ${table} WHERE bus = ? AND id = ?`, [this.bus, id]);
  }

  async list(retainMs: number): Promise<WorkerList> {
    const table = sqlTableName(this.db, SqlWorkerEntity);
    await this.db.execute(`DELETE FROM ${table} WHERE bus = ? AND last_beat_at < ${this.db.now} - ?`, [
      this.bus,
      Math.floor(retainMs),
    ]);
    const [clock] = await this.db.query<{ now: number | string }>(`SELECT ${this.db.now} AS now`);
    const rows = await this.db.query<WorkerRow>(
      `SELECT id, host, pid, version, transport, concurrency, busy, started_at, last_beat_at
       FROM ${table} WHERE bus = ? ORDER BY last_beat_at DESC, id`,
      [this.bus],
    );
    return {
      now: new Date(Number(clock?.now)),
      workers: rows.map((row) => ({
        id: row.id,
        host: row.host,
        pid: Number(row.pid),
        version: row.version,
        transport: row.transport,
        concurrency: Number(row.concurrency),
        busy: Number(row.busy),
        startedAt: new Date(Number(row.started_at)),
        lastBeatAt: new Date(Number(row.last_beat_at)),
      })),
    };
  }
}
