import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { type BenchTarget, HandledTally, nowMs } from './load.js';

const QUEUE = 'raw-bench';

/** Plain BullMQ: one job per event, a worker with concurrency 100 and a no-op processor. */
export class RawBullmqSide implements BenchTarget {
  readonly label = 'raw bullmq';
  readonly tally = new HandledTally();
  readonly unitSize = 1;
  private readonly queueConnection: Redis;
  private readonly workerConnection: Redis;
  private readonly queue: Queue<{ sentAt: number }>;
  private readonly worker: Worker<{ sentAt: number }>;

  constructor(redisUrl: string, prefix: string) {
    this.queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.queue = new Queue(QUEUE, { connection: this.queueConnection, prefix });
    this.worker = new Worker<{ sentAt: number }>(
      QUEUE,
      async (job) => {
        this.tally.record(job.data.sentAt);
      },
      { connection: this.workerConnection, prefix, concurrency: 100 },
    );
  }

  async start(): Promise<void> {
    await Promise.all([this.queue.waitUntilReady(), this.worker.waitUntilReady()]);
  }

  async send(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await this.queue.add('event', { sentAt: nowMs() }, { removeOnComplete: true });
    }
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
    await Promise.all([this.queueConnection.quit(), this.workerConnection.quit()]);
  }
}
