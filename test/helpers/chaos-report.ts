import type { DataSource } from 'typeorm';
import { HandledEventEntity } from '../../src/idempotency/handled-event.entity.js';
import { OutboxRecordEntity } from '../../src/outbox/outbox-record.entity.js';
import { queueNames } from '../../src/transports/redis/index.js';
import {
  CHAOS_HANDLERS,
  ChaosEffect,
  type ChaosHandlerSpec,
  ChaosItem,
  ChaosRolledBack,
  runKeys,
} from '../fixtures/chaos-app.js';
import type { ChaosCounts } from './chaos-cluster.js';
import { jobCounts, openQueue, type RedisClient, unfinishedJobs } from './redis.js';

type BusNames = Parameters<typeof queueNames>[0];

/** `names` as the shape of a bus's options, which the Redis helpers take. */
function busOf(names: BusNames) {
  return { redis: { prefix: names.prefix }, name: names.name };
}

/** What is left of the run in PostgreSQL and Redis; all zero once everything is handled. */
export interface Leftovers {
  outboxRows: number;
  streamLength: number;
  pendingEntries: number;
  delayedEvents: number;
  unfinishedJobs: number;
}

/** Reads {@link Leftovers}. */
export async function leftovers(
  dataSource: DataSource,
  redis: RedisClient,
  names: BusNames,
): Promise<Leftovers> {
  const q = queueNames(names);
  const [pending] = (await redis.xpending(q.stream, q.group)) as [number];
  return {
    outboxRows: await dataSource.getRepository(OutboxRecordEntity).count(),
    streamLength: await redis.xlen(q.stream),
    pendingEntries: pending,
    delayedEvents: await redis.zcard(q.delayed),
    unfinishedJobs:
      (await unfinishedJobs(redis, busOf(names), 'async')) +
      (await unfinishedJobs(redis, busOf(names), 'retry')),
  };
}

/** Whether every {@link Leftovers} count is zero. */
export function isEmpty(left: Leftovers): boolean {
  return Object.values(left).every((n) => n === 0);
}

/** How one handler fared. */
export interface HandlerTally {
  readonly handler: string;
  readonly mode: string;
  /** Committed events it handled: a completed run (plain), a committed effect (idempotent). */
  readonly handled: number;
  /** Committed events it never handled (first few ids). */
  readonly missing: readonly string[];
  readonly missingCount: number;
  /** Events handled more than once: completed runs (plain) or committed effects (idempotent). */
  readonly duplicates: number;
  /** Runs that started and never finished: the process died mid-handler. */
  readonly interrupted: number;
  /** Events whose unit of work did not commit (rolled back, or died before commit) that a run started for. */
  readonly notCommitted: number;
  /** Of those, events of units of work that rolled back on purpose. */
  readonly rolledBack: number;
  /** `commitbus_handled` rows of an idempotent handler; must equal committed. */
  readonly records: number | undefined;
}

/** The outcome of one crash run. */
export interface ChaosReport {
  readonly events: number;
  readonly committed: number;
  readonly rolledBack: number;
  readonly handlers: readonly HandlerTally[];
  readonly left: Leftovers;
  /** Handler work BullMQ gave up on (failed set of the async and retry queues). */
  readonly failedJobs: number;
  readonly failedReasons: readonly string[];
}

/** Counts what the handlers did, from PostgreSQL and the run log in Redis. */
export async function collectReport(
  dataSource: DataSource,
  redis: RedisClient,
  names: BusNames,
  events: number,
): Promise<ChaosReport> {
  const committed = new Set(
    (await dataSource.getRepository(ChaosItem).find({ select: { eventId: true } })).map((r) => r.eventId),
  );
  const rolledBack = new Set(
    (await dataSource.getRepository(ChaosRolledBack).find({ select: { eventId: true } })).map(
      (r) => r.eventId,
    ),
  );
  const handlers: HandlerTally[] = [];
  for (const spec of CHAOS_HANDLERS) {
    handlers.push(await tally(spec, dataSource, redis, names.prefix, committed, rolledBack));
  }
  let failedJobs = 0;
  const failedReasons: string[] = [];
  for (const kind of ['async', 'retry'] as const) {
    failedJobs += (await jobCounts(redis, busOf(names), kind)).failed ?? 0;
    const queue = openQueue(redis, busOf(names), kind);
    try {
      for (const job of await queue.getFailed(0, 9)) failedReasons.push(`${job.id}: ${job.failedReason}`);
    } finally {
      await queue.close();
    }
  }
  return {
    events,
    committed: committed.size,
    rolledBack: rolledBack.size,
    handlers,
    left: await leftovers(dataSource, redis, names),
    failedJobs,
    failedReasons,
  };
}

async function tally(
  spec: ChaosHandlerSpec,
  dataSource: DataSource,
  redis: RedisClient,
  prefix: string,
  committed: ReadonlySet<string>,
  rolledBack: ReadonlySet<string>,
): Promise<HandlerTally> {
  const keys = runKeys(prefix, spec.name);
  const started = counts(await redis.hgetall(keys.started));
  const done = counts(await redis.hgetall(keys.done));
  let handledCounts = done;
  let records: number | undefined;
  if (spec.idempotent) {
    const rows = await dataSource
      .getRepository(ChaosEffect)
      .createQueryBuilder('e')
      .select('e.eventId', 'eventId')
      .addSelect('COUNT(*)', 'n')
      .where('e.handler = :handler', { handler: spec.name })
      .groupBy('e.eventId')
      .getRawMany<{ eventId: string; n: string }>();
    handledCounts = new Map(rows.map((r) => [r.eventId, Number(r.n)]));
    records = await dataSource.getRepository(HandledEventEntity).countBy({ handler: spec.name });
  }
  const missing = [...committed].filter((id) => !handledCounts.has(id));
  const touched = new Set([...started.keys(), ...handledCounts.keys()]);
  const notCommitted = [...touched].filter((id) => !committed.has(id));
  return {
    handler: spec.name,
    mode: `${spec.sync ? 'sync' : 'async'}${spec.idempotent ? ', idempotent' : ''}`,
    handled: [...handledCounts.keys()].filter((id) => committed.has(id)).length,
    missing: missing.slice(0, 5),
    missingCount: missing.length,
    duplicates: [...handledCounts.values()].filter((n) => n > 1).length,
    interrupted: sum(started) - sum(done),
    notCommitted: notCommitted.length,
    rolledBack: notCommitted.filter((id) => rolledBack.has(id)).length,
    records,
  };
}

function counts(hash: Record<string, string>): Map<string, number> {
  return new Map(Object.entries(hash).map(([id, n]) => [id, Number(n)]));
}

function sum(map: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const n of map.values()) total += n;
  return total;
}

/** The report as the test prints it. */
export function formatReport(report: ChaosReport, counts: ChaosCounts, seconds: number): string {
  const lines = [
    `crash test: ${report.events} units of work in ${seconds.toFixed(1)} s`,
    `  committed ${report.committed}, rolled back ${report.rolledBack}`,
    `  publisher: killed by the test ${counts.publisherKilled}, died between commit and publish ${counts.publisherDiedAfterCommit}, started ${counts.publishersStarted} times`,
    `  workers: killed ${counts.workersKilled}, started ${counts.workersStarted} times`,
    `  events relayed from the outbox: ${counts.relayed}`,
    '  handler                 mode               handled  missing  duplicates  mid-run kills  uncommitted  records',
  ];
  for (const h of report.handlers) {
    lines.push(
      `  ${h.handler.padEnd(22)}  ${h.mode.padEnd(17)}  ${pad(h.handled, 7)}  ${pad(h.missingCount, 7)}  ${pad(h.duplicates, 10)}  ${pad(h.interrupted, 13)}  ${pad(h.notCommitted, 11)}  ${pad(h.records ?? '-', 7)}`,
    );
  }
  const left = report.left;
  lines.push(
    `  left: outbox ${left.outboxRows}, stream ${left.streamLength}, pending ${left.pendingEntries}, delayed ${left.delayedEvents}, unfinished jobs ${left.unfinishedJobs}, failed jobs ${report.failedJobs}`,
  );
  for (const reason of report.failedReasons) lines.push(`  failed: ${reason}`);
  return lines.join('\n');
}

function pad(value: number | string, width: number): string {
  return String(value).padStart(width);
}
