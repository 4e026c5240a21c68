import type {
  AppendResult,
  LateOrderedEvent,
  OutgoingEvent,
  SkippedRange,
} from '../../events/outgoing-event.js';
import type { EventLog, LogEntry } from '../../handlers/event-log.js';
import { OrderingPositionsMismatchError } from '../../ordering/errors/ordering-positions-mismatch.error.js';
import { InternalError } from '../../support/errors/internal.error.js';
import { type LaneKeys, laneKeys } from './lane-keys.js';
import type { QueueNames } from './queue-names.js';
import type { RedisClient } from './redis-client.js';
import { type LateReply, streamScripts } from './stream-scripts.js';

/** The keys of one bus's log. */
export type StreamLogKeys = Pick<QueueNames, 'stream' | 'group' | 'delayed' | 'seen' | 'ordering'>;

type StreamEntry = [id: string, fields: string[] | null];

/**
 * Most pending entries one claim looks at whose event was deleted meanwhile
 * (each leaves the pending list as it is looked at), before it answers none.
 */
const CLAIM_MAX_LOOKS = 100;

/**
 * `EventLog` on a Redis stream with one consumer group. Ordered events
 * go to their lanes instead (the same script call; see `ordered-steps.lua`). Drains read with
 * XREADGROUP, so each entry goes to one drain; handled entries are XACKed and
 * XDELed, so the stream holds exactly the events not yet handled. Delayed
 * events wait in a sorted set; accepted ids are remembered in keys that expire
 * after the dedupe window.
 */
export class RedisStreamEventLog implements EventLog {
  private groupReady: Promise<void> | undefined;
  private readonly lanes: LaneKeys;

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
    private readonly client: RedisClient,
    private readonly keys: StreamLogKeys,
    private readonly dedupeWindowMs: number,
    private readonly blocking: RedisClient = client,
  ) {
    this.streamKey = keys.stream;
    this.group = keys.group;
    this.lanes = laneKeys(keys.ordering);
  }

  /** The same log, reading on a connection of its own (blocking reads hold it). */
  withBlockingClient(blocking: RedisClient): RedisStreamEventLog {
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
    const keys = [this.keys.stream, this.keys.delayed, this.lanes.pending, this.lanes.ready];
    const args: (string | number)[] = [this.dedupeWindowMs];
    for (const e of events) {
      if (!e.skipDedupe) keys.push(`${this.keys.seen}${e.id}`);
      if (e.lane !== undefined) keys.push(this.lanes.lane(e.lane), this.lanes.events(e.lane));
      args.push(
        e.skipDedupe ? '' : '1',
        e.deliverAt === undefined ? '' : String(e.deliverAt),
        e.payload,
        e.lane ?? '',
        e.position === undefined ? '' : String(e.position),
      );
    }
    const reply = await streamScripts(this.client).commitbusPublishEvents(keys.length, ...keys, ...args);
    if (reply.length === 5) {
      const [, , , lane, numbering] = reply;
      throw new OrderingPositionsMismatchError(lane, numbering === 'g' ? 'outbox' : 'transport');
    }
    const [appended, delayed, dropped, late] = reply;
    if (late.length === 0) return { appended, delayed, dropped };
    return { appended, delayed, dropped, late: late.map((l) => lateEvent(events, l)) };
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

  async claimStale(consumer: string, minIdleMs: number): Promise<LogEntry | undefined> {
    await this.ensureGroup();
    const reply = await streamScripts(this.client).commitbusClaimStaleEvent(
      this.streamKey,
      this.group,
      consumer,
      minIdleMs,
      CLAIM_MAX_LOOKS,
    );
    if (reply === null) return undefined;
    const [entryId, deliveries, fields] = reply;
    return { entryId, payload: payloadOf(fields), deliveries: Number(deliveries) };
  }

  async hasStale(minIdleMs: number): Promise<boolean> {
    await this.ensureGroup();
    const stale = await this.client.xpending(this.streamKey, this.group, 'IDLE', minIdleMs, '-', '+', 1);
    return stale.length > 0;
  }

  async ack(entryIds: readonly string[]): Promise<void> {
    if (entryIds.length === 0) return;
    await streamScripts(this.client).commitbusAckEvents(this.streamKey, this.group, ...entryIds);
  }

  backlog(): Promise<number> {
    return this.client.xlen(this.streamKey);
  }

  /** From the oldest stream id: Redis numbers entries by the ms they were added in. */
  async oldestAt(): Promise<Date | undefined> {
    const [first] = (await this.client.xrange(this.streamKey, '-', '+', 'COUNT', 1)) as StreamEntry[];
    return first === undefined ? undefined : new Date(Number(first[0].split('-')[0]));
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

/** A late event of `publish-events.lua`'s reply, with the event it names. */
function lateEvent(events: readonly OutgoingEvent[], reply: LateReply): LateOrderedEvent {
  const [index, position, from, to, why, at] = reply;
  const event = events[Number(index)];
  if (event === undefined)
    throw new InternalError(`publish-events.lua named event ${index} of ${events.length}`);
  return {
    event,
    position: Number(position),
    rebase: { from: Number(from), to: Number(to), why: why as SkippedRange['why'], at: Number(at) },
  };
}

function toLogEntries(entries: StreamEntry[]): LogEntry[] {
  const out: LogEntry[] = [];
  for (const [entryId, fields] of entries) {
    if (fields !== null) out.push({ entryId, payload: payloadOf(fields), deliveries: 1 });
  }
  return out;
}

/** The envelope in an entry's fields (`p`); an entry without one decodes as malformed. */
function payloadOf(fields: readonly string[]): string {
  // Fields come as name, value, name, value...: only even indices are names, so a value "p" is not one.
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'p') return fields[i + 1] as string;
  }
  return '';
}
