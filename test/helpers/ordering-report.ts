import type { DataSource } from 'typeorm';
import { queueNames } from '../../src/transports/redis/index.js';
import {
  ORDERING_HANDLERS,
  OrdCommit,
  type OrderingHandlerSpec,
  OrdItem,
  OrdRolledBack,
  type OrdRun,
} from '../fixtures/ordering-app.js';
import type { ChaosCounts } from './chaos-cluster.js';
import { type RedisClient, scanKeys } from './redis.js';

type BusNames = Parameters<typeof queueNames>[0];

/** What is left of ordered events in Redis; all zero once every event is handled. */
export interface OrderingLeftovers {
  /** The lanes' count of events waiting (`<prefix>:<name>:ord:pending`). */
  orderedPending: number;
  /** Lane event hashes still holding events (counted apart from `pending`, to catch a drifting count). */
  lanesWithEvents: number;
  /** Lanes halted by a handler that gave up. */
  haltedLanes: number;
  /** Lanes waiting for a retry. */
  retryingLanes: number;
}

/** Reads {@link OrderingLeftovers}. */
export async function orderingLeftovers(redis: RedisClient, names: BusNames): Promise<OrderingLeftovers> {
  const P = queueNames(names).ordering;
  return {
    orderedPending: Number((await redis.get(`${P}pending`)) ?? 0),
    lanesWithEvents: (await scanKeys(redis, `${P}e:*`)).length,
    haltedLanes: await redis.zcard(`${P}halted`),
    retryingLanes: await redis.zcard(`${P}retry`),
  };
}

/** A lane that still has events, as Redis has it: for a timeout's message. */
export interface LaneState {
  readonly lane: string;
  /** Positions waiting (the first few). */
  readonly positions: readonly number[];
  /** The lane's hash: next, tail, owner, current event (cp, cs, cv), q, halt, … */
  readonly fields: Record<string, string>;
  /** Milliseconds left of the owner's lease (negative: lapsed), or `null` if the owner has none. */
  readonly ownerLeaseLeftMs: number | null;
  /** Whether the lane is in its owner's list, where recovery looks for it. */
  readonly inOwnerList: boolean;
  readonly inReady: boolean;
}

/** Up to `max` lanes that still have events, with what decides who runs them next. */
export async function lanesWithEvents(redis: RedisClient, names: BusNames, max = 5): Promise<LaneState[]> {
  const P = queueNames(names).ordering;
  const [seconds, micros] = (await redis.time()) as [number | string, number | string];
  const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
  const out: LaneState[] = [];
  for (const key of (await scanKeys(redis, `${P}e:*`)).slice(0, max)) {
    const lane = key.slice(`${P}e:`.length);
    const fields = await redis.hgetall(`${P}l:${lane}`);
    const lease = fields.owner === undefined ? null : await redis.zscore(`${P}workers`, fields.owner);
    out.push({
      lane,
      positions: (await redis.hkeys(key))
        .map(Number)
        .sort((a, b) => a - b)
        .slice(0, 5),
      fields,
      ownerLeaseLeftMs: lease === null ? null : Number(lease) - now,
      inOwnerList: fields.owner !== undefined && (await redis.lpos(`${P}w:${fields.owner}`, lane)) !== null,
      inReady: (await redis.lpos(`${P}ready`, lane)) !== null,
    });
  }
  return out;
}

/**
 * The lanes a worker process (by pid) holds, as Redis lists them: read right
 * after the worker was SIGKILLed, the lanes other workers will take over
 * once its lease lapses.
 */
export async function lanesOfWorker(redis: RedisClient, names: BusNames, pid: number): Promise<string[]> {
  const lanes: string[] = [];
  for (const key of await scanKeys(redis, `${queueNames(names).ordering}w:*:${pid}:*`)) {
    lanes.push(...(await redis.lrange(key, 0, -1)));
  }
  return lanes;
}

/** Everything the ordering test's processes left in PostgreSQL, as the checks read it. */
export interface OrderingData {
  readonly items: readonly Pick<OrdItem, 'key' | 'version'>[];
  readonly commits: readonly Pick<OrdCommit, 'key' | 'version' | 'eventId'>[];
  /** Events whose unit of work rolled back. */
  readonly rolledBack: number;
  /** Per handler name, its runs in the order they were written. */
  readonly runs: ReadonlyMap<string, readonly OrdRun[]>;
}

/** Reads {@link OrderingData}. */
export async function loadOrderingData(dataSource: DataSource): Promise<OrderingData> {
  const runs = new Map<string, OrdRun[]>();
  for (const spec of ORDERING_HANDLERS) {
    runs.set(spec.name, await dataSource.getRepository(spec.table).find({ order: { id: 'ASC' } }));
  }
  return {
    items: await dataSource.getRepository(OrdItem).find(),
    commits: await dataSource.getRepository(OrdCommit).find({ order: { key: 'ASC', version: 'ASC' } }),
    rolledBack: await dataSource.getRepository(OrdRolledBack).count(),
    runs,
  };
}

/** How one handler saw the items' events. */
export interface HandlerOrdering {
  readonly handler: string;
  readonly mode: string;
  /** Runs recorded. */
  readonly runs: number;
  /** Runs that repeated the event just before them (a worker killed between the run and recording it). */
  readonly repeats: number;
}

/** The outcome of the ordering checks. */
export interface OrderingReport {
  /** Items, and items with at least one committed event. */
  readonly keys: number;
  readonly keysChanged: number;
  /** Committed events, and the most of one item. */
  readonly committed: number;
  readonly maxPerKey: number;
  /** Events whose unit of work rolled back. */
  readonly rolledBack: number;
  readonly handlers: readonly HandlerOrdering[];
  /** Every broken property, per item and handler (the first {@link PROBLEMS_KEPT}). */
  readonly problems: readonly string[];
  readonly problemCount: number;
}

const PROBLEMS_KEPT = 30;

/** `seq` and `prev` of an event, as a handler saw it. */
type Place = Pick<OrdRun, 'seq' | 'prev'>;

/**
 * Checks, per item, that each handler saw its committed sequence: the
 * committed versions are 1..N (N the item's version) with one event each; the
 * idempotent handler's runs are exactly versions 1..N in order, each other
 * handler's too once consecutive repeats of an event are collapsed; every run
 * is of the committed event of its version; `seq` grows along the versions,
 * the first event has no `prev` and each other's `prev` is the `seq` before
 * it; every run of an event (repeats and other handlers included) carries the
 * same `seq` and `prev`; and no two events share a `seq`.
 */
export function checkOrdering(
  data: OrderingData,
  handlers: readonly OrderingHandlerSpec[] = ORDERING_HANDLERS,
): OrderingReport {
  const problems: string[] = [];
  const commitsByKey = groupBy(data.commits, (c) => c.key);
  const runsByHandler = new Map(
    handlers.map((h) => [h.name, groupBy(data.runs.get(h.name) ?? [], (r) => r.key)] as const),
  );
  const repeats = new Map(handlers.map((h) => [h.name, 0]));
  const reference = handlers.find((h) => h.idempotent) ?? handlers[0];
  const seqOwner = new Map<number, string>();

  for (const { key, version: n } of data.items) {
    const expected = range(n);
    const committed = commitsByKey.get(key) ?? [];
    const versions = committed.map((c) => c.version);
    if (!sameList(versions, expected))
      problems.push(`${key}: committed versions ${differs(versions, expected)}`);
    const eventOf = new Map(committed.map((c) => [c.version, c.eventId]));
    const placesOf = new Map<string, Map<number, Place>>();
    for (const spec of handlers) {
      const runs = runsByHandler.get(spec.name)?.get(key) ?? [];
      const checked = checkRuns(`${key} ${spec.name}`, spec, runs, expected, eventOf);
      problems.push(...checked.problems);
      repeats.set(spec.name, (repeats.get(spec.name) ?? 0) + checked.repeats);
      placesOf.set(spec.name, checked.places);
    }
    const ref = reference === undefined ? undefined : placesOf.get(reference.name);
    for (const spec of handlers) {
      if (ref === undefined || spec === reference) continue;
      for (const [version, at] of placesOf.get(spec.name) ?? []) {
        const want = ref.get(version);
        if (want !== undefined && (want.seq !== at.seq || want.prev !== at.prev)) {
          problems.push(
            `${key} ${spec.name}: version ${version} has seq ${at.seq} prev ${at.prev}, ${reference?.name} saw seq ${want.seq} prev ${want.prev}`,
          );
        }
      }
    }
    for (const [version, at] of ref ?? []) {
      const other = seqOwner.get(at.seq);
      if (other !== undefined) problems.push(`seq ${at.seq} given to ${other} and ${key} version ${version}`);
      seqOwner.set(at.seq, `${key} version ${version}`);
    }
  }
  const keys = new Set(data.items.map((i) => i.key));
  for (const key of commitsByKey.keys()) {
    if (!keys.has(key)) problems.push(`${key}: committed events of an unknown item`);
  }

  return {
    keys: data.items.length,
    keysChanged: data.items.filter((i) => i.version > 0).length,
    committed: data.commits.length,
    maxPerKey: Math.max(0, ...data.items.map((i) => i.version)),
    rolledBack: data.rolledBack,
    handlers: handlers.map((h) => ({
      handler: h.name,
      mode: `${h.sync ? 'sync' : 'async'}${h.idempotent ? ', idempotent' : ''}`,
      runs: data.runs.get(h.name)?.length ?? 0,
      repeats: repeats.get(h.name) ?? 0,
    })),
    problems: problems.slice(0, PROBLEMS_KEPT),
    problemCount: problems.length,
  };
}

/** Checks one handler's runs of one item's events (see {@link checkOrdering}). */
function checkRuns(
  where: string,
  spec: OrderingHandlerSpec,
  runs: readonly OrdRun[],
  expected: readonly number[],
  eventOf: ReadonlyMap<number, string>,
): { problems: string[]; repeats: number; places: Map<number, Place> } {
  const problems: string[] = [];
  const collapsed = runs.filter((r, i) => i === 0 || runs[i - 1]?.version !== r.version);
  const handled = (spec.idempotent ? runs : collapsed).map((r) => r.version);
  if (!sameList(handled, expected)) {
    const what = spec.idempotent ? 'handled' : 'handled (consecutive repeats collapsed)';
    problems.push(`${where}: ${what} ${differs(handled, expected)}`);
  }
  const places = new Map<number, Place>();
  for (const run of runs) {
    if (eventOf.get(run.version) !== run.eventId) {
      problems.push(
        `${where}: ran event ${run.eventId} as version ${run.version}, which committed as ${eventOf.get(run.version)}`,
      );
    }
    const first = places.get(run.version);
    if (first === undefined) places.set(run.version, { seq: run.seq, prev: run.prev });
    else if (first.seq !== run.seq || first.prev !== run.prev) {
      problems.push(
        `${where}: version ${run.version} ran again as seq ${run.seq} prev ${run.prev}, first as seq ${first.seq} prev ${first.prev}`,
      );
    }
  }
  for (const version of expected) {
    const at = places.get(version);
    if (at === undefined) continue; // missing: reported above
    const before = places.get(version - 1);
    if (version === 1 && at.prev !== null)
      problems.push(`${where}: first event (seq ${at.seq}) has prev ${at.prev}`);
    if (before !== undefined && at.prev !== before.seq) {
      problems.push(
        `${where}: version ${version} has seq ${at.seq} prev ${at.prev}, but version ${version - 1} had seq ${before.seq}`,
      );
    }
    if (before !== undefined && at.seq <= before.seq) {
      problems.push(
        `${where}: seq goes from ${before.seq} (version ${version - 1}) to ${at.seq} (version ${version})`,
      );
    }
  }
  return { problems, repeats: runs.length - collapsed.length, places };
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `[..., 4, 6, ...] (#5 is 6, expected 5; 11 in all, expected 1..12)`: where two sequences part. */
function differs(got: readonly number[], expected: readonly number[]): string {
  let i = 0;
  while (i < got.length && got[i] === expected[i]) i++;
  const from = Math.max(0, i - 2);
  const around = `[${from > 0 ? '..., ' : ''}${got.slice(from, i + 3).join(', ')}${i + 3 < got.length ? ', ...' : ''}]`;
  const at = i < got.length ? `#${i + 1} is ${got[i]}` : `ends after #${i}`;
  const wanted = i < expected.length ? `expected ${expected[i]}` : 'expected nothing more';
  return `${around} (${at}, ${wanted}; ${got.length} in all, expected 1..${expected.length})`;
}

/** How the ordering test ran, for its report. */
export interface OrderingRun {
  readonly units: number;
  readonly producers: number;
  readonly workers: number;
  /** Seconds until the producers were done, and in all. */
  readonly publishSeconds: number;
  readonly seconds: number;
  /** Lanes the killed workers held when they died (taken over by others), sync and async. */
  readonly lanesTakenOver: { readonly sync: number; readonly async: number };
}

/** The report as the test prints it. */
export function formatOrderingReport(report: OrderingReport, counts: ChaosCounts, run: OrderingRun): string {
  const lines = [
    `ordering test: ${run.units} units of work from ${run.producers} producers, ${run.workers} workers, in ${run.seconds.toFixed(1)} s (producers done after ${run.publishSeconds.toFixed(1)} s)`,
    `  events committed ${report.committed}, rolled back ${report.rolledBack}; ${report.keysChanged} of ${report.keys} items changed, at most ${report.maxPerKey} events on one`,
    `  workers: killed ${counts.workersKilled}, started ${counts.workersStarted} times; lanes they held when killed: ${run.lanesTakenOver.sync} sync, ${run.lanesTakenOver.async} async`,
    `  lanes a live worker found taken over: ${counts.lanesLost}; events relayed from the outbox: ${counts.relayed}`,
    '  handler           mode                 runs  repeats',
  ];
  for (const h of report.handlers) {
    lines.push(
      `  ${h.handler.padEnd(16)}  ${h.mode.padEnd(17)}  ${String(h.runs).padStart(7)}  ${String(h.repeats).padStart(7)}`,
    );
  }
  lines.push(`  problems: ${report.problemCount}`);
  for (const p of report.problems) lines.push(`    ${p}`);
  return lines.join('\n');
}
