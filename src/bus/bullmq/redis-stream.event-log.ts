import type { Redis } from 'ioredis';
import type { EventLog, LogEntry } from '../event-log.js';
import type { AppendResult, OutgoingEvent } from '../outgoing-event.js';
import type { QueueNames } from './queue-names.js';
import { streamScripts } from './stream-scripts.js';

/** The keys of one bus's log. */
export type StreamLogKeys = Pick<QueueNames, 'stream' | 'group' | 'delayed' | 'seen' | 'ordering'>;

type StreamEntry = [id: string, fields: string[] | null];

/**
 * {@link EventLog} on a Redis stream with one consumer group. Ordered events
 * go to their lanes instead (the same script call; see `ordered-steps.lua`). Drains read with
 * XREADGROUP, so each entry goes to one drain; handled entries are XACKed and
 * XDELed, so the stream holds exactly the events not yet handled. Delayed
 * events wait in a sorted set; accepted ids are remembered in keys that expire
 * after the dedupe window.
 */
export class RedisStreamEventLog implements EventLog {
  private groupReady: Promise<void> | undefined;

  /** The stream's key. */
  readonly streamKey: string;
  /** The consumer group drains read in. */
  readonly group: string;

  /**
   * @param client - connection for non-blocking commands.
   * @param keys - the log's Redis keys.
   * @param dedupeWindowMs - how long accepted ids are remembered.
   * @param blocking - connection for blocking reads (a drain's own).
   */
  constructor(
    private readonly client: Redis,
    private readonly keys: StreamLogKeys,
    private readonly dedupeWindowMs: number,
    private readonly blocking: Redis = client,
  ) {
    this.streamKey = keys.stream;
    this.group = keys.group;
  }

  /** The same log, reading on a connection of its own (blocking reads hold it). */
  withBlockingClient(blocking: Redis): RedisStreamEventLog {
    const log = new RedisStreamEventLog(this.client, this.keys, this.dedupeWindowMs, blocking);
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

  async append(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    if (events.length === 0) return { appended: 0, delayed: 0, dropped: 0 };
    const args: string[] = [];
    for (const e of events)
      args.push(
        e.skipDedupe ? '' : e.id,
        e.deliverAt === undefined ? '' : String(e.deliverAt),
        e.payload,
        e.lane ?? '',
        e.position === undefined ? '' : String(e.position),
      );
    const [appended, delayed, dropped] = await streamScripts(this.client).commitbusPublishEvents(
      this.keys.stream,
      this.keys.delayed,
      this.keys.seen,
      this.dedupeWindowMs,
      this.keys.ordering,
      ...args,
    );
    return { appended, delayed, dropped };
  }

  releaseDue(limit: number): Promise<number> {
    return streamScripts(this.client).commitbusReleaseDelayed(this.keys.delayed, this.keys.stream, limit);
  }

  delayed(): Promise<number> {
    return this.client.zcard(this.keys.delayed);
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
