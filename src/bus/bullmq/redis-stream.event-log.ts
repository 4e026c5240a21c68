import type { Redis } from 'ioredis';
import type { EventLog, LogEntry } from '../event-log.js';
import { streamScripts } from './stream-scripts.js';

type StreamEntry = [id: string, fields: string[] | null];

/**
 * {@link EventLog} on a Redis stream with one consumer group. Drains read with
 * XREADGROUP, so each entry goes to one drain; handled entries are XACKed and
 * XDELed, so the stream holds exactly the events not yet handled.
 */
export class RedisStreamEventLog implements EventLog {
  private groupReady: Promise<void> | undefined;

  /**
   * @param client - connection for non-blocking commands.
   * @param streamKey - the stream's key.
   * @param group - the consumer group drains read in.
   * @param blocking - connection for blocking reads (a drain's own).
   */
  constructor(
    private readonly client: Redis,
    readonly streamKey: string,
    readonly group: string,
    private readonly blocking: Redis = client,
  ) {}

  /** The same log, reading on a connection of its own (blocking reads hold it). */
  withBlockingClient(blocking: Redis): RedisStreamEventLog {
    const log = new RedisStreamEventLog(this.client, this.streamKey, this.group, blocking);
    log.groupReady = this.groupReady;
    return log;
  }

  /** Creates the stream and group if missing; entries appended earlier are kept. */
  ensureGroup(): Promise<void> {
    this.groupReady ??= this.client.xgroup('CREATE', this.streamKey, this.group, '0', 'MKSTREAM').then(
      () => undefined,
      (error: Error) => {
        if (!String(error.message).includes('BUSYGROUP')) {
          this.groupReady = undefined;
          throw error;
        }
      },
    );
    return this.groupReady;
  }

  async append(payloads: readonly string[]): Promise<void> {
    if (payloads.length === 0) return;
    await streamScripts(this.client).commitbusAppendEvents(this.streamKey, ...payloads);
  }

  async read(consumer: string, count: number, blockMs: number): Promise<LogEntry[]> {
    await this.ensureGroup();
    let reply: unknown;
    try {
      reply = await this.blocking.xreadgroup(
        'GROUP',
        this.group,
        consumer,
        'COUNT',
        count,
        'BLOCK',
        blockMs,
        'STREAMS',
        this.streamKey,
        '>',
      );
    } catch (error) {
      // The stream was deleted under us (e.g. FLUSHDB): recreate the group once.
      if (!String((error as Error).message).includes('NOGROUP')) throw error;
      this.groupReady = undefined;
      await this.ensureGroup();
      return [];
    }
    if (reply === null) return [];
    const [[, entries]] = reply as [[string, StreamEntry[]]];
    return toLogEntries(entries);
  }

  async claimStale(consumer: string, minIdleMs: number, count: number): Promise<LogEntry[]> {
    await this.ensureGroup();
    const reply = (await this.client.xautoclaim(
      this.streamKey,
      this.group,
      consumer,
      minIdleMs,
      '0-0',
      'COUNT',
      count,
    )) as [string, StreamEntry[], string[]?];
    const deleted = reply[2] ?? [];
    if (deleted.length > 0) await this.client.xack(this.streamKey, this.group, ...deleted);
    return toLogEntries(reply[1]);
  }

  async ack(entryIds: readonly string[]): Promise<void> {
    if (entryIds.length === 0) return;
    await streamScripts(this.client).commitbusAckEvents(this.streamKey, this.group, ...entryIds);
  }

  backlog(): Promise<number> {
    return this.client.xlen(this.streamKey);
  }

  async removeConsumer(consumer: string): Promise<void> {
    const pending = (await this.client.xpending(
      this.streamKey,
      this.group,
      '-',
      '+',
      1,
      consumer,
    )) as unknown[];
    // DELCONSUMER drops a consumer's pending entries: only forget consumers with none.
    if (pending.length === 0) await this.client.xgroup('DELCONSUMER', this.streamKey, this.group, consumer);
  }
}

function toLogEntries(entries: StreamEntry[]): LogEntry[] {
  const out: LogEntry[] = [];
  for (const [entryId, fields] of entries) {
    if (fields === null) continue;
    const index = fields.indexOf('p');
    out.push({ entryId, payload: index >= 0 ? (fields[index + 1] ?? '') : '' });
  }
  return out;
}
