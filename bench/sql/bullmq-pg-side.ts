import { createPostgresBackend, withBackend } from 'bullmq';
import pg from 'pg';
import { dropSchema } from './pg-admin.js';
import type { TxSide } from './tx-side.js';
import type { TxTally } from './tx-tally.js';

const QUEUE = 'bench';
const { Queue, Worker } = withBackend(createPostgresBackend);
type BenchQueue = InstanceType<typeof Queue<{ unit: number }>>;
type BenchWorker = InstanceType<typeof Worker<{ unit: number }>>;

/**
 * BullMQ 6 on its PostgreSQL backend, as its users write it: the row in a
 * transaction (BEGIN; INSERT; COMMIT on a pg Pool), then `queue.add` after
 * commit. Not atomic: a crash between COMMIT and `queue.add` loses the job.
 * A `Worker` with `concurrency` in this process; its schema of its own.
 */
export class BullmqPgSide implements TxSide {
  readonly label = 'bullmq-pg';
  readonly description: string;
  private pool: pg.Pool | undefined;
  private queue: BenchQueue | undefined;
  private worker: BenchWorker | undefined;

  constructor(
    readonly tally: TxTally,
    private readonly schema: string,
    private readonly rows: string,
    private readonly poolSize: number,
    private readonly concurrency: number,
  ) {
    this.description =
      `BullMQ 6.7 createPostgresBackend: BEGIN; INSERT; COMMIT, then queue.add (not atomic); ` +
      `Worker concurrency ${concurrency}, removeOnComplete`;
  }

  async prepare(url: string): Promise<void> {
    const queue = new Queue<{ unit: number }>(QUEUE, {
      connection: { connectionString: url, schema: this.schema, migrate: true, max: 2 },
    });
    await queue.waitUntilReady();
    await queue.close();
  }

  async open(url: string): Promise<void> {
    this.pool = new pg.Pool({ connectionString: url, max: this.poolSize });
    this.pool.on('error', (error) => console.error(`  bullmq-pg producers pool: ${error.message}`));
    const connection = { connectionString: url, schema: this.schema, max: this.poolSize };
    const queue = new Queue<{ unit: number }>(QUEUE, { connection });
    this.queue = queue;
    await queue.waitUntilReady();
    const worker = new Worker<{ unit: number }>(
      QUEUE,
      async (job) => {
        this.tally.handle(job.data.unit);
      },
      {
        connection: { connectionString: url, schema: this.schema, max: this.concurrency + 2 },
        concurrency: this.concurrency,
      },
    );
    worker.on('error', (error) => console.error(`  bullmq-pg worker: ${error.message}`));
    this.worker = worker;
    await worker.waitUntilReady();
  }

  async unit(unit: number): Promise<void> {
    const client = await this.pool!.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${this.rows}.bench_row (side, unit) VALUES ($1, $2)`, ['bullmq', unit]);
      await client.query('COMMIT');
      this.tally.committed(unit);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    await this.queue!.add('bench', { unit }, { removeOnComplete: true });
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    await this.pool?.end();
    this.worker = undefined;
    this.queue = undefined;
    this.pool = undefined;
  }

  async teardown(url: string): Promise<void> {
    await dropSchema(url, this.schema);
  }
}
