import type { DataSource } from 'typeorm';
import { StoreEventRowEntity, StoreStateRowEntity } from '../../src/event-store/index.js';
import {
  ADDED,
  type Added,
  amountOf,
  EntryEntity,
  TallyEntity,
} from '../fixtures/event-store-process-models.js';

/** What the database says about a store run with the process models, in a form a test compares whole. */
export interface FoldReport {
  /** The queue row's last version and the writer row's handled version. */
  queued: number;
  handled: number;
  /** History rows, and whether their versions are exactly 1..queued. */
  rows: number;
  gapFree: boolean;
  /** History rows per status. */
  statuses: Record<string, number>;
  /** Per source: events applied (tallies) and their sum. */
  tallies: Record<string, { count: number; sum: number }>;
  /** Entry rows, and those whose `v` is not the version of the event that made them (or that no event made). */
  entries: number;
  entriesNotMatchingHistory: string[];
}

/**
 * Reads the store's tables and the models' tables: a double apply shows in
 * the tallies (one count too many) or failed outright (an entry's `ins`), a
 * lost event in both, a gap in `gapFree`.
 */
export async function foldReport(dataSource: DataSource): Promise<FoldReport> {
  const states = await dataSource.getRepository(StoreStateRowEntity).find();
  const history = await dataSource.getRepository(StoreEventRowEntity).find({ order: { v: 'ASC' } });
  const tallies = await dataSource.getRepository(TallyEntity).find({ order: { source: 'ASC' } });
  const entries = await dataSource.getRepository(EntryEntity).find();
  const statuses: Record<string, number> = {};
  const versionOf = new Map<string, number>();
  for (const row of history) {
    statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    if (row.type !== ADDED) continue;
    const data = JSON.parse(row.data) as Added;
    versionOf.set(`${data.source}:${data.seq}`, row.v);
  }
  const queued = states.find((s) => s.id === 'queue')?.queued ?? 0;
  return {
    queued,
    handled: states.find((s) => s.id === 'writer')?.handled ?? 0,
    rows: history.length,
    gapFree: history.length === queued && history.every((row, i) => row.v === i + 1),
    statuses,
    tallies: Object.fromEntries(tallies.map((t) => [t.source, { count: t.count, sum: t.sum }])),
    entries: entries.length,
    entriesNotMatchingHistory: entries
      .filter((e) => versionOf.get(e.id) !== e.v)
      .map((e) => `${e.id}@v${e.v}`)
      .slice(0, 10),
  };
}

/**
 * The report a run must end with when `sources` dispatched `PROC.ADDED`
 * events 1..n each (and `others` more events with the given statuses, e.g.
 * `{ skipped: 1 }`), every one handled exactly once.
 */
export function expectedFold(
  sources: Record<string, number>,
  others: Record<string, number> = {},
): FoldReport {
  const added = Object.values(sources).reduce((a, b) => a + b, 0);
  const total = added + Object.values(others).reduce((a, b) => a + b, 0);
  const tallies: FoldReport['tallies'] = {};
  for (const [source, n] of Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : 1))) {
    let sum = 0;
    for (let seq = 1; seq <= n; seq++) sum += amountOf(seq);
    if (n > 0) tallies[source] = { count: n, sum };
  }
  const statuses: Record<string, number> = { ...others };
  statuses.handled = (statuses.handled ?? 0) + added;
  return {
    queued: total,
    handled: total,
    rows: total,
    gapFree: true,
    statuses,
    tallies,
    entries: added,
    entriesNotMatchingHistory: [],
  };
}

/** One writer's stretch of versions, from the entries each writer stamped with its pid. */
export interface WriterRun {
  pid: number;
  from: number;
  to: number;
}

/** The entries in version order, grouped into runs of the same writer pid. */
export async function writerRuns(dataSource: DataSource): Promise<WriterRun[]> {
  const entries = await dataSource.getRepository(EntryEntity).find({ order: { v: 'ASC' } });
  const runs: WriterRun[] = [];
  for (const { pid, v } of entries) {
    const last = runs.at(-1);
    if (last?.pid === pid) last.to = v;
    else runs.push({ pid, from: v, to: v });
  }
  return runs;
}

/** The handled version, read from the database. */
export async function handledVersion(dataSource: DataSource): Promise<number> {
  const row = await dataSource.getRepository(StoreStateRowEntity).findOneBy({ id: 'writer' });
  return row?.handled ?? 0;
}
