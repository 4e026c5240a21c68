import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../../support/logger.js';

/** The one channel every bus's wake-ups go on; the payload is `<bus>|<topic>`. */
export const WAKEUP_CHANNEL = 'commitbus';

/** The part of a pg pool client the listener uses. */
interface PgClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', fn: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', fn: (error?: unknown) => void): void;
  removeAllListeners(): void;
  release(error?: unknown): void;
}

/** Longest wait between reconnect attempts. */
const MAX_BACKOFF_MS = 5_000;

/**
 * A `LISTEN` on a dedicated connection taken from the DataSource's pg pool,
 * calling `onPayload` for each notification on {@link WAKEUP_CHANNEL}. Lazily
 * started ({@link PgWakeupListener.start}, idempotent); when the connection
 * drops it reconnects with a bounded backoff, logging the first failure
 * only. Never throws: a lost listener only means waits end by their poll.
 */
export class PgWakeupListener {
  private client: PgClient | undefined;
  private started = false;
  private closed = false;
  private warned = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly onPayload: (payload: string) => void,
    private readonly logger: Logger,
  ) {}

  /** Starts listening, if not yet. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: PgClient | undefined;
    try {
      // biome-ignore lint/suspicious/noExplicitAny: TypeORM's postgres driver keeps its pg pool untyped
      const pool = (this.dataSource.driver as any).master as { connect(): Promise<PgClient> };
      client = await pool.connect();
      client.on('notification', (message) => {
        if (message.channel === WAKEUP_CHANNEL && message.payload !== undefined)
          this.onPayload(message.payload);
      });
      client.on('error', (error) => this.dropped(client, error));
      await client.query(`LISTEN ${WAKEUP_CHANNEL}`);
      if (this.closed) {
        this.releaseClient(client);
        return;
      }
      this.client = client;
      this.backoffMs = 100;
      this.warned = false;
    } catch (error) {
      this.dropped(client, error);
    }
  }

  /** The connection failed or dropped: let it go and try again later. */
  private dropped(client: PgClient | undefined, error: unknown): void {
    if (client !== undefined) this.releaseClient(client, error);
    if (this.client === client) this.client = undefined;
    if (this.closed) return;
    if (!this.warned) {
      this.warned = true;
      this.logger.warn(
        { error: describeError(error) },
        'commitbus: the SQL transport lost its LISTEN connection; reconnecting (workers poll meanwhile)',
      );
    }
    if (this.retry !== undefined) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, delay);
    this.retry.unref?.();
  }

  private releaseClient(client: PgClient, error?: unknown): void {
    client.removeAllListeners();
    client.on('error', () => {});
    try {
      client.release(error === undefined ? undefined : true);
    } catch {
      // Released already.
    }
  }

  /** Stops listening and gives the connection back (destroyed, so no LISTEN lingers in the pool). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    await client.query(`UNLISTEN ${WAKEUP_CHANNEL}`).catch(() => {});
    this.releaseClient(client, true);
  }
}
