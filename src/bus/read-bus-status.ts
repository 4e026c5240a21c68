import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import { countsByHandlerAndKind } from '../dead-letters/dead-letter-groups.js';
import type { JobCounts } from '../handlers/handler-job-counts.js';
import type { HaltedKey } from '../ordering/halted-key.js';
import type { RebasedKeys } from '../ordering/rebased-key.js';
import type { Outbox } from '../outbox/outbox.js';
import type { SchedulingRule } from '../scheduling/scheduling-rule.js';
import {
  BUS_STATUS_HALTED_SHOWN,
  BUS_STATUS_REBASED_SHOWN,
  type BusStatus,
  type HaltedKeyStatus,
  type HandlerStatus,
  type RuleStatus,
} from './bus-status.js';
import type { Transport } from './transport.js';
import { readWorkerStatus } from './worker-status.js';

/** What {@link readBusStatus} reads from: the bus's ports, and its outbox if any. */
export interface BusStatusSources {
  /** Which bus it is. */
  readonly config: Pick<ResolvedCommitbusOptions, 'name' | 'redis' | 'workers'>;
  /** The ports the counts are read from. */
  readonly transport: Pick<
    Transport,
    'name' | 'log' | 'jobs' | 'rules' | 'deadLetters' | 'ordering' | 'workers'
  >;
  /** The bus's handler names, listed even when they have nothing. */
  readonly handlerNames: readonly string[];
  /** The halted keys (`bus.ordering.halted()`). */
  readonly halted: () => Promise<HaltedKey[]>;
  /** The re-based keys (`bus.ordering.rebased(limit)`). */
  readonly rebased: (limit: number) => Promise<RebasedKeys>;
  /** The bus's outbox, when it has one. */
  readonly outbox: Outbox | undefined;
  /** The names of the transport's paused BullMQ queues (see `readPausedQueues`). */
  readonly pausedQueues: () => Promise<readonly string[]>;
}

/** Reads a {@link BusStatus}; every read is one port call, run side by side. */
export async function readBusStatus(sources: BusStatusSources): Promise<BusStatus> {
  const { transport, config } = sources;
  const now = Date.now();
  const [
    events,
    oldest,
    ordered,
    delayed,
    jobs,
    parkedHandlers,
    parked,
    dropped,
    rules,
    letters,
    halted,
    rebased,
    outbox,
    workers,
    pausedQueues,
  ] = await Promise.all([
    transport.log.backlog(),
    transport.log.oldestAt(),
    transport.ordering.pending(),
    transport.log.delayed(),
    transport.jobs.counts(),
    transport.rules.parkedHandlers(),
    transport.rules.parkedCount(),
    transport.rules.droppedCount(),
    transport.rules.listRules(),
    transport.deadLetters.counts(),
    sources.halted(),
    sources.rebased(BUS_STATUS_REBASED_SHOWN),
    sources.outbox === undefined
      ? undefined
      : Promise.all([sources.outbox.pending(), sources.outbox.oldestAt()]),
    readWorkerStatus(transport.workers, config.workers),
    sources.pausedQueues(),
  ]);
  const parkedBy = new Map(
    await Promise.all(parkedHandlers.map(async (h) => [h, await transport.rules.parkedCount(h)] as const)),
  );
  // The store's counts, kept as letters come and go: a status never reads the letters themselves.
  const { byHandler: lettersBy, byKind } = countsByHandlerAndKind(letters);
  const handlers = handlerStatuses(sources.handlerNames, jobs.byHandler, parkedBy, lettersBy);
  return {
    bus: { name: config.name, prefix: config.redis.prefix, transport: transport.name },
    readAt: new Date(now).toISOString(),
    backlog: { events, oldestAgeMs: ageOf(oldest, now), ordered, delayed },
    jobs: { waiting: jobs.waiting, running: jobs.running, retrying: jobs.retrying },
    parked,
    dropped,
    deadLetters: {
      count: letters.total,
      byKind,
      byHandler: lettersBy,
      dropped: letters.dropped,
    },
    halted: { count: halted.length, first: halted.slice(0, BUS_STATUS_HALTED_SHOWN).map(toHaltedStatus) },
    rebased: {
      count: rebased.count,
      recent: rebased.recent.map((r) => ({
        key: r.key,
        from: r.from,
        to: r.to,
        why: r.why,
        rebasedAt: r.rebasedAt.toISOString(),
      })),
    },
    rules: rules.map(toRuleStatus),
    pausedQueues: [...pausedQueues],
    handlers,
    outbox: outbox === undefined ? null : { pending: outbox[0], oldestAgeMs: ageOf(outbox[1], now) },
    workers,
  };
}

/** Each handler's counts, by name: the bus's handlers, and any other that has work or letters. */
function handlerStatuses(
  handlerNames: readonly string[],
  jobsBy: Readonly<Record<string, JobCounts>>,
  parkedBy: ReadonlyMap<string, number>,
  lettersBy: Readonly<Partial<Record<string, number>>>,
): Record<string, HandlerStatus> {
  const names = new Set([
    ...handlerNames,
    ...Object.keys(jobsBy),
    ...parkedBy.keys(),
    ...Object.keys(lettersBy),
  ]);
  const handlers: Record<string, HandlerStatus> = {};
  for (const name of [...names].sort()) {
    const counts: JobCounts = jobsBy[name] ?? { waiting: 0, running: 0, retrying: 0 };
    handlers[name] = {
      waiting: counts.waiting,
      running: counts.running,
      retrying: counts.retrying,
      parked: parkedBy.get(name) ?? 0,
      deadLetters: lettersBy[name] ?? 0,
    };
  }
  return handlers;
}

function ageOf(at: Date | undefined, now: number): number | null {
  return at === undefined ? null : Math.max(0, now - at.getTime());
}

function toHaltedStatus(h: HaltedKey): HaltedKeyStatus {
  return {
    key: h.key,
    lane: h.lane,
    handler: h.handler ?? null,
    reason: h.reason,
    error: h.error,
    haltedAt: h.haltedAt.toISOString(),
    waiting: h.waiting,
  };
}

function toRuleStatus(rule: SchedulingRule): RuleStatus {
  return {
    kind: rule.kind,
    handler: 'handler' in rule.target ? rule.target.handler : null,
    handlingKey: 'handlingKey' in rule.target ? rule.target.handlingKey : null,
    since: rule.since.toISOString(),
  };
}
