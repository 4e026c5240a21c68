import pg from 'pg';
import PgBoss from 'pg-boss';
import { dropSchema } from './pg-admin.js';
import type { TxSide } from './tx-side.js';
import type { TxTally } from './tx-tally.js';

const QUEUE = 'bench';
// pg-boss refuses to poll more often than every 0.5 s.
const POLLING_SECONDS = 0.5;

/**
 * pg-boss 10 (the newest 10.x): BEGIN; INSERT the row; `boss.send(queue,
 * data, { db })` on the producer's transaction client; COMMIT, and
 * `boss.work` at the smallest polling it allows, a few workers each taking a
 * batch, in this process; its schema of its own.
 */
export class PgBossSide implements TxSide {
  readonly label = 'pg-boss';
  readonly description: string;
  private pool: pg.Pool | undefined;
  private boss: PgBoss | undefined;

  constructor(
    readonly tally: TxTally,
    private readonly schema: string,
    private readonly rows: string,
    private readonly poolSize: number,
    private readonly workers: number,
    private readonly batchSize: number,
  ) {
    this.description =
      `pg-boss 10.4.2: BEGIN; INSERT; boss.send(..., { db: tx client }); COMMIT; ` +
      `${workers} x boss.work({ pollingIntervalSeconds: ${POLLING_SECONDS}, batchSize: ${batchSize} }) ` +
      '(no LISTEN: a worker waits out its poll interval after each fetch)';
  }

  async prepare(url: string): Promise<void> {
    const boss = new PgBoss({ connectionString: url, schema: this.schema, max: 2 });
    boss.on('error', () => {});
    await boss.start();
    await boss.createQueue(QUEUE);
    await boss.stop({ graceful: false, wait: true });
  }

  async open(url: string): Promise<void> {
    this.pool = new pg.Pool({ connectionString: url, max: this.poolSize });
    this.pool.on('error', (error) => console.error(`  pg-boss producers pool: ${error.message}`));
    const boss = new PgBoss({ connectionString: url, schema: this.schema, max: this.workers + 4 });
    boss.on('error', (error) => console.error(`  pg-boss: ${error.message}`));
    this.boss = boss;
    await boss.start();
    for (let i = 0; i < this.workers; i++) {
      await boss.work<{ unit: number }>(
        QUEUE,
        { pollingIntervalSeconds: POLLING_SECONDS, batchSize: this.batchSize },
        async (jobs) => {
          for (const job of jobs) this.tally.handle(job.data.unit);
        },
      );
    }
  }

  async unit(unit: number): Promise<void> {
    const client = await this.pool!.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${this.rows}.bench_row (side, unit) VALUES ($1, $2)`, ['pgboss', unit]);
      await this.boss!.send(
        QUEUE,
        { unit },
        { db: { executeSql: (text, values) => client.query(text, values) } },
      );
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
    await this.boss?.stop({ graceful: true, wait: true, timeout: 10_000 });
    await this.pool?.end();
    this.boss = undefined;
    this.pool = undefined;
  }

  async teardown(url: string): Promise<void> {
    await dropSchema(url, this.schema);
  }
}
