import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Batch } from '../../router/batch.js';
import type { BatchStore, DroppedBatches, TakeOptions } from '../../router/batch-store.js';
import { UnknownSubscriberError } from '../../router/errors/unknown-subscriber.error.js';
import type { SubscriberQueueStats } from '../../router/subscriber.js';
import type { IngestResult } from '../../router/topic.js';
import { UnexpectedRedisReplyError } from './errors/unexpected-redis-reply.error.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { type RouterKeys, routerKeys } from './router-keys.js';
import { routerScripts } from './router-scripts.js';

/**
 * {@link BatchStore} on Redis, after seed 004, under the bus's hash tag (see
 * {@link RouterKeys}; each step one script, `scripts/router-*.lua`). Workers
 * wait for work with BLPOP on a `wake` list that ingest, promote, nack,
 * recovery and resume push to, on a connection of their own (a duplicate of
 * `client`, opened on the first wait and ended by {@link RedisBatchStore.close}).
 */
export class RedisBatchStore implements BatchStore {
  private readonly keys: RouterKeys;
  private blocking: RedisClient | undefined;
  private waiting: Promise<unknown> | undefined;

  constructor(
    private readonly client: RedisClient,
    names: Pick<QueueNames, 'tag'>,
  ) {
    this.keys = routerKeys(names.tag);
  }

  async ingest(
    publisher: string,
    topic: string,
    events: readonly string[],
    now: number,
  ): Promise<IngestResult> {
    const k = this.keys;
    const [ok, value] = await routerScripts(this.client).routerIngest(
      k.topics,
      k.topicEvents,
      k.seq,
      k.all,
      k.early,
      k.due,
      k.wake,
      k.topicSubscribers(topic),
      k.prefix,
      publisher,
      topic,
      now,
      nonce(),
      ...events,
    );
    return ok === 1 ? { ok: true, subscribers: Number(value) } : { ok: false, owner: String(value) };
  }

  promoteDue(now: number): Promise<number> {
    const k = this.keys;
    return routerScripts(this.client).routerPromote(k.early, k.due, k.wake, k.prefix, now);
  }

  async take({ worker, limit, now, leaseMs, maxInFlightPerSubscriber }: TakeOptions): Promise<Batch[]> {
    if (limit <= 0) return [];
    const k = this.keys;
    const rows = await routerScripts(this.client).routerTake(
      k.due,
      k.pending,
      k.holders,
      k.prefix,
      worker,
      limit,
      now,
      leaseMs,
      maxInFlightPerSubscriber,
    );
    return rows.map(([id, subscriber, createdAt, attempts, health, lastError, hasError, events]) => ({
      id,
      subscriber,
      events,
      createdAt: Number(createdAt),
      attempts: Number(attempts),
      health: Number(health ?? 100),
      ...(hasError === 1 ? { lastError } : {}),
    }));
  }

  async waitForWork(timeoutMs: number): Promise<void> {
    if (timeoutMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    // One BLPOP at a time on the blocking connection; other waiters share it.
    if (this.waiting === undefined) {
      if (this.blocking === undefined) {
        this.blocking = this.client.duplicate();
        // Its connection errors go where the client's go (the throttled warning), never unhandled.
        this.blocking.on('error', (error: Error) => {
          if (this.client.listenerCount('error') > 0) this.client.emit('error', error);
        });
      }
      const blocking = this.blocking;
      // A new connection refuses commands until it is ready when its offline queue is off (a cluster's
      // copy is): a BLPOP sent before would fail at once, and the wait would not wait.
      const popped = whenReady(blocking)
        .then(() => blocking.blpop(this.keys.wake, timeoutMs / 1000))
        .catch(() => undefined);
      this.waiting = popped;
      void popped.finally(() => {
        if (this.waiting === popped) this.waiting = undefined;
      });
    }
    try {
      await Promise.race([this.waiting, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  ack(worker: string, batchId: string): Promise<boolean> {
    return this.finish('ack', worker, batchId);
  }

  nack(worker: string, batchId: string, retryAt: number, error: string): Promise<boolean> {
    return this.finish('nack', worker, batchId, retryAt, error);
  }

  discard(worker: string, batchId: string): Promise<boolean> {
    return this.finish('discard', worker, batchId);
  }

  async requeue(subscriber: string, events: readonly string[], now: number): Promise<void> {
    const k = this.keys;
    const done = await routerScripts(this.client).routerRequeue(
      k.subscriber(subscriber),
      k.subscriberBatches(subscriber),
      k.subscriberReady(subscriber),
      k.seq,
      k.all,
      k.due,
      k.wake,
      k.prefix,
      subscriber,
      now,
      nonce(),
      ...events,
    );
    if (done !== 1) throw new UnknownSubscriberError(subscriber);
  }

  recoverExpired(now: number, retryAt: number): Promise<number> {
    const k = this.keys;
    return routerScripts(this.client).routerRecover(
      k.pending,
      k.holders,
      k.due,
      k.wake,
      k.prefix,
      now,
      retryAt,
    );
  }

  async dropOldest(limit: number): Promise<DroppedBatches> {
    if (limit <= 0) return { batches: 0, eventsBySubscriber: {} };
    const k = this.keys;
    const flat = await routerScripts(this.client).routerDropOldest(
      k.all,
      k.pending,
      k.early,
      k.due,
      k.prefix,
      limit,
    );
    const eventsBySubscriber: Record<string, number> = {};
    for (let i = 0; i < flat.length; i += 2) {
      const name = flat[i] as string;
      eventsBySubscriber[name] = (eventsBySubscriber[name] ?? 0) + Number(flat[i + 1]);
    }
    return { batches: flat.length / 2, eventsBySubscriber };
  }

  async memoryUsed(): Promise<number> {
    const info = await this.serverOfKeys().then((server) => server.info('memory'));
    const used = /^used_memory:(\d+)/m.exec(info);
    if (used === null)
      throw new UnexpectedRedisReplyError(
        'Redis INFO memory gave no used_memory: point REDIS_URL at a Redis server (a proxy or another server may not answer INFO)',
      );
    return Number(used[1]);
  }

  async stats(): Promise<Record<string, SubscriberQueueStats>> {
    const rows = await routerScripts(this.client).routerStats(this.keys.subscribers, this.keys.prefix);
    const stats: Record<string, SubscriberQueueStats> = {};
    for (const [name, sent, queued, health, batches, oldest, lastError, lastErrorAt] of rows.sort(
      ([a], [b]) => (a < b ? -1 : 1),
    )) {
      stats[name] = {
        sent: Number(sent),
        queued: Number(queued),
        oldest: oldest === '' ? null : Number(oldest),
        batches: Number(batches),
        health: Number(health),
        lastError: lastErrorAt === '' ? null : { message: lastError, at: Number(lastErrorAt) },
      };
    }
    return stats;
  }

  countDue(by: number): Promise<number> {
    const k = this.keys;
    return routerScripts(this.client).routerCountDue(k.subscribers, k.early, k.prefix, by);
  }

  /** Ends the connection `waitForWork` opened, if any (not `client`, which stays the caller's). */
  async close(): Promise<void> {
    const blocking = this.blocking;
    this.blocking = undefined;
    if (blocking !== undefined) blocking.disconnect();
  }

  private async finish(
    mode: string,
    worker: string,
    batchId: string,
    retryAt = 0,
    error = '',
  ): Promise<boolean> {
    const k = this.keys;
    const settled = await routerScripts(this.client).routerFinish(
      k.pending,
      k.holders,
      k.all,
      k.due,
      k.wake,
      k.prefix,
      mode,
      worker,
      batchId,
      retryAt,
      error,
      Date.now(),
    );
    return settled === 1;
  }

  /** The server holding the router's keys: the Redis itself, or the cluster node serving their slot. */
  private async serverOfKeys(): Promise<{ info(section: string): Promise<string> }> {
    if (!(this.client instanceof Cluster)) return this.client;
    const slot = Number(await this.client.cluster('KEYSLOT', this.keys.due));
    const [master] = (this.client.slots[slot] ?? []) as string[];
    const node = this.client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === master);
    if (node === undefined)
      throw new UnexpectedRedisReplyError(
        `no Redis Cluster node known for slot ${slot}: check that the cluster is up and every slot is assigned (CLUSTER INFO)`,
      );
    return node;
  }
}

/** 12 random hex characters ending the ids of the batches one call makes. */
function nonce(): string {
  return randomBytes(6).toString('hex');
}

/**
 * Resolves once `client` is ready for commands (at once when it is), or
 * when it ends (closed: the command then fails and the wait ends); a client
 * not yet connecting (`lazyConnect`) is told to connect.
 */
function whenReady(client: RedisClient): Promise<void> {
  if (client.status === 'ready' || client.status === 'end') return Promise.resolve();
  const ready = new Promise<void>((resolve) => {
    client.once('ready', () => resolve());
    client.once('end', () => resolve());
  });
  if (client.status === 'wait') client.connect().catch(() => undefined);
  return ready;
}
