import { Logger, type Runner, run, runMigrations } from 'graphile-worker';
import pg from 'pg';
import { dropSchema } from './pg-admin.js';
import type { TxSide } from './tx-side.js';
import type { TxTally } from './tx-tally.js';

const quiet = new Logger(() => () => {});

/**
 * graphile-worker (0.17.3: 0.18 needs Node 22.18, this machine runs Node
 * 20), as its users write it: BEGIN; INSERT the row; `SELECT
 * <schema>.add_job(...)`; COMMIT on a pg Pool, and `run({ pgPool,
 * concurrency, taskList })` in this process; its schema of its own.
 */
export class GraphileSide implements TxSide {
  readonly label = 'graphile-worker';
  readonly description: string;
  private pool: pg.Pool | undefined;
  private runner: Runner | undefined;

  constructor(
    readonly tally: TxTally,
    /** Schema of graphile-worker's tables. */
    private readonly schema: string,
    /** Schema holding `bench_row`. */
    private readonly rows: string,
    private readonly poolSize: number,
    private readonly concurrency: number,
  ) {
    this.description =
      `graphile-worker 0.17.3 (0.18 requires Node >= 22.18): BEGIN; INSERT; SELECT add_job(); COMMIT; ` +
      `run({ pgPool, concurrency: ${concurrency}, taskList }), otherwise default options`;
  }

  async prepare(url: string): Promise<void> {
    await runMigrations({ connectionString: url, schema: this.schema, logger: quiet });
  }

  async open(url: string): Promise<void> {
    const pool = new pg.Pool({ connectionString: url, max: this.poolSize });
    // Both handlers, as graphile-worker asks of a pool it is given (else it warns and installs its own).
    pool.on('error', (error) => console.error(`  graphile-worker pool: ${error.message}`));
    pool.on('connect', (client) => {
      client.on('error', (error) => console.error(`  graphile-worker client: ${error.message}`));
    });
    this.pool = pool;
    this.runner = await run({
      pgPool: pool,
      schema: this.schema,
      concurrency: this.concurrency,
      noHandleSignals: true,
      logger: quiet,
      taskList: {
        bench: async (payload) => this.tally.handle((payload as { unit: number }).unit),
      },
    });
  }

  async unit(unit: number): Promise<void> {
    const client = await this.pool!.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${this.rows}.bench_row (side, unit) VALUES ($1, $2)`, [
        'graphile',
        unit,
      ]);
      await client.query(`SELECT ${this.schema}.add_job('bench', json_build_object('unit', $1::int))`, [
        unit,
      ]);
      await client.query('COMMIT');
      this.tally.committed(unit);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.runner?.stop();
    await this.pool?.end();
    this.runner = undefined;
    this.pool = undefined;
  }

  async teardown(url: string): Promise<void> {
    await dropSchema(url, this.schema);
  }
}
