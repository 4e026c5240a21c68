import type { JobType, Queue } from 'bullmq';
import type { BusStatus } from '../bus/bus-status.js';
import type { EventBus } from '../bus/event-bus.js';
import type { DeadLetter } from '../dead-letters/dead-letter.js';
import type { EventStore } from '../event-store/event-store.js';
import type { HistoryEvent } from '../event-store/store-event.js';
import type { HaltedKey } from '../ordering/halted-key.js';
import type { RouterStores } from '../router/router-stores.js';
import type { SubscriberQueueStats } from '../router/subscriber.js';
import type { SchedulingRule } from '../scheduling/scheduling-rule.js';
import type { OperatorAction } from '../support/operator-action-log.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import { bullmqQueueCounts } from './bullmq-queues.js';
import { readAudit } from './bus-audit.js';
import { noAnswerMessage } from './read-within.js';

/** Dead letters shown on the page; `GET api/dead-letters?limit=` lists more. */
export const DEAD_LETTERS_SHOWN = 200;

/** One BullMQ queue's job counts (Redis transport). */
export interface QueueView {
  /** The queue's name, e.g. `events-async`. */
  readonly name: string;
  /** Jobs by state: waiting, active, delayed, prioritized, failed. */
  readonly counts: Readonly<Record<string, number>>;
}

/** A router subscriber and its queue; its signing secrets are never shown. */
export interface SubscriberView {
  /** The subscriber (its token's name). */
  readonly name: string;
  /** Where its batches are POSTed. */
  readonly callback: string;
  /** The topics it receives. */
  readonly topics: readonly string[];
  /** Whether its deliveries are paused. */
  readonly paused: boolean;
  /** Whether it takes one batch at a time, in order. */
  readonly ordered: boolean;
  /** Its queue: events waiting, batches, health, last error. */
  readonly queue: SubscriberQueueStats | undefined;
}

/** A durable subscription of the event store that stopped at an event. */
export interface HaltedSubscriptionView {
  /** Its name. */
  readonly name: string;
  /** The version it is halted at. */
  readonly v: number;
  /** Why: the error's name and message. */
  readonly error: string;
}

/** The event store's position, queue, writer and halts. */
export interface EventStoreView {
  /** The last handled event's version. */
  readonly version: number;
  /** Events queued and not handled yet. */
  readonly queued: number;
  /** Whether this process (the dashboard's) is the writer now. */
  readonly writerHere: boolean;
  /** The event it is halted at, with its error; absent when it is not halted. */
  readonly halted?: HistoryEvent;
  /** Its durable subscriptions that are halted. */
  readonly haltedSubscriptions: readonly HaltedSubscriptionView[];
}

/** A part of a snapshot that could not be read: the page shows `unavailable: <message>`. */
export interface Unavailable {
  /** Why (the error's message). */
  readonly unavailable: string;
}

/** A part of a snapshot, or why it could not be read; the other parts are shown all the same. */
export type SnapshotPart<T> = T | Unavailable;

/** Whether a snapshot part could not be read. */
export function isUnavailable<T>(part: SnapshotPart<T>): part is Unavailable {
  return typeof part === 'object' && part !== null && !Array.isArray(part) && 'unavailable' in part;
}

/** Everything the dashboard page shows, read at one moment (`GET /api/overview`); each part fails alone. */
export interface DashboardSnapshot {
  /** The bus's name (`config.name`). */
  readonly bus: string;
  /** The bus's transport: its adapter's name (`redis`, `sql-postgres`, `sql-sqlite`). */
  readonly transport: string;
  /** `bus.status()`: backlog, jobs, parked, dropped, dead letters by kind and handler, per handler, outbox. */
  readonly status: SnapshotPart<BusStatus>;
  /** The bus's BullMQ queues; empty on the SQL transport (and so the embedded default). */
  readonly queues: SnapshotPart<readonly QueueView[]>;
  /** How many dead letters there are (`status.deadLetters.count`; those listed when the status is unavailable). */
  readonly deadLetterCount: number;
  /** The oldest (`DEAD_LETTERS_SHOWN`) dead letters. */
  readonly deadLetters: SnapshotPart<readonly DeadLetter[]>;
  /** Order keys halted by a handler that gave up. */
  readonly halted: SnapshotPart<readonly HaltedKey[]>;
  /** Pause and block rules in force. */
  readonly rules: SnapshotPart<readonly SchedulingRule[]>;
  /** The router's subscribers, when the dashboard was given its stores. */
  readonly subscribers?: SnapshotPart<readonly SubscriberView[]>;
  /** The event store, when the dashboard was given one. */
  readonly eventStore?: SnapshotPart<EventStoreView>;
  /** The newest operator actions of the audit trail (`bus.audit.list()`), newest first. */
  readonly audit: SnapshotPart<readonly OperatorAction[]>;
}

/** Where a snapshot is read from. */
export interface SnapshotSources {
  readonly bus: EventBus;
  readonly queues: readonly Queue[];
  readonly router?: RouterStores;
  readonly eventStore?: EventStore;
  /** How long each part may take before it is shown as unavailable (`readTimeoutMs`). */
  readonly readTimeoutMs: number;
  /** Whether requests' Basic credentials are checked (`basicAuth` set): only then does their user name name the actor. */
  readonly basicChecked: boolean;
}

const JOB_STATES: readonly JobType[] = ['waiting', 'active', 'delayed', 'prioritized', 'failed'];

/**
 * Reads a {@link DashboardSnapshot}, every part at once; a part that fails
 * (the event store's database down, the bus's Redis gone) or gives no answer
 * within `readTimeoutMs` is logged through the bus's logger and shown as
 * unavailable, the rest as usual.
 */
export async function readSnapshot(sources: SnapshotSources): Promise<DashboardSnapshot> {
  const { bus, queues, router, eventStore, readTimeoutMs } = sources;
  const part = async <T>(name: string, read: () => Promise<T>): Promise<SnapshotPart<T>> => {
    let message: string;
    try {
      const value = await readWithin(read, readTimeoutMs);
      if (value !== NO_ANSWER) return value;
      message = noAnswerMessage(readTimeoutMs);
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    bus.logger.warn({ part: name, error: message }, 'the dashboard could not read a part of its page');
    return { unavailable: message };
  };
  const [status, queueViews, letters, halted, rules, subscribers, store, audit] = await Promise.all([
    part('status', () => bus.status()),
    part('queues', () => bullmqQueueCounts(bus, queues, JOB_STATES)),
    part('dead letters', () => bus.deadLetters.list({ limit: DEAD_LETTERS_SHOWN })),
    part('halted keys', () => bus.ordering.halted()),
    part('rules', () => bus.rules.list()),
    router === undefined ? undefined : part('router', () => readSubscribers(router)),
    eventStore === undefined ? undefined : part('event store', () => readEventStore(eventStore)),
    part('audit trail', () => readAudit(bus)),
  ]);
  return {
    bus: bus.config.name,
    transport: bus.runsOn.transport,
    status,
    queues: queueViews,
    deadLetterCount: isUnavailable(status)
      ? isUnavailable(letters)
        ? 0
        : letters.length
      : status.deadLetters.count,
    deadLetters: letters,
    halted,
    rules,
    ...(subscribers === undefined ? {} : { subscribers }),
    ...(store === undefined ? {} : { eventStore: store }),
    audit,
  };
}
/** The router's subscribers, each with its queue (never its secrets). */
export async function readSubscribers(router: RouterStores): Promise<SubscriberView[]> {
  const [subscribers, stats] = await Promise.all([
    router.subscribers.listSubscribers(),
    router.batches.stats(),
  ]);
  return subscribers.map((s) => ({
    name: s.name,
    callback: s.callback,
    topics: s.topics,
    paused: s.paused,
    ordered: s.ordered,
    queue: stats[s.name],
  }));
}

async function readEventStore(store: EventStore): Promise<EventStoreView> {
  const [status, subscriptions] = await Promise.all([store.status(), store.subscriptions.list()]);
  const haltedSubscriptions = subscriptions
    .filter((s) => s.status === 'halted')
    .map((s) => ({
      name: s.name,
      v: s.position + 1,
      error: s.error === undefined ? '' : `${s.error.name}: ${s.error.message}`,
    }));
  return {
    version: status.version,
    queued: status.queued,
    writerHere: status.writer,
    ...(status.halted === null ? {} : { halted: status.halted }),
    haltedSubscriptions,
  };
}
