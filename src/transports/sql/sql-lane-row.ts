import type { SkippedRange } from '../../events/outgoing-event.js';
import type { LaneNumbering } from '../../ordering/errors/ordering-positions-mismatch.error.js';
import type { LaneRebase, RebaseWhy } from '../../ordering/lane-rebase.js';
import { formatSkipped, parseSkipped } from './sql-lane-skipped.js';

/** A lane's current event, as the columns `cur_*` of `commitbus_lanes` keep it. */
export interface LaneCurrent {
  position: number;
  seq: number;
  prev: number | undefined;
  attemptsMade: number;
  /** Failures as JSON. */
  failures: string;
  from: number;
  /** The halt reason of a halted event an operator skipped, as JSON. */
  skipped: string | undefined;
  /** Hand-outs since its last recorded step. */
  deliveries: number;
}

/**
 * One row of `commitbus_lanes` (see `schema/lane.entity.ts`), read under
 * the row's lock, changed in memory by the ordering store's steps and written
 * back whole ({@link laneUpdate}).
 */
export interface LaneRow {
  readonly lane: string;
  tail: number;
  numbering: LaneNumbering | undefined;
  /** `undefined`: no state of its own (reads as 1). */
  next: number | undefined;
  last: number | undefined;
  owner: string | undefined;
  ownedAt: number | undefined;
  queuedAt: number | undefined;
  cur: LaneCurrent | undefined;
  /** Why it halted, as JSON. */
  halt: string | undefined;
  haltedAt: number | undefined;
  retryAt: number | undefined;
  gapPosition: number | undefined;
  gapSince: number | undefined;
  gapUntil: number | undefined;
  rebase: LaneRebase | undefined;
  readonly skipped: SkippedRange[];
}

/** The columns of `commitbus_lanes` a {@link LaneRow} is read from, in `SELECT` lists. */
export const LANE_COLUMNS = [
  'lane',
  'tail',
  'numbering',
  'next_position',
  'last_seq',
  'owner',
  'owned_at',
  'queued_at',
  'cur_position',
  'cur_seq',
  'cur_prev',
  'cur_attempts',
  'cur_failures',
  'cur_from',
  'cur_skipped',
  'cur_deliveries',
  'halt',
  'halted_at',
  'retry_at',
  'gap_position',
  'gap_since',
  'gap_until',
  'rebase_from',
  'rebase_to',
  'rebase_why',
  'rebase_at',
  'skipped',
] as const;

/** {@link LANE_COLUMNS} qualified by `alias`, for a `SELECT` list. */
export function laneColumns(alias?: string): string {
  return LANE_COLUMNS.map((c) => (alias === undefined ? c : `${alias}.${c}`)).join(', ');
}

/** A record of {@link LANE_COLUMNS}, as a driver returns it (bigint as string on PostgreSQL). */
export type LaneRecord = Record<(typeof LANE_COLUMNS)[number], unknown>;

/** A nullable numeric column as a number or `undefined`. */
export function num(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

function str(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : String(value);
}

/** A {@link LaneRow} from its record. */
export function laneFromRecord(r: LaneRecord): LaneRow {
  const position = num(r.cur_position);
  const rebaseAt = num(r.rebase_at);
  return {
    lane: String(r.lane),
    tail: Number(r.tail ?? 0),
    numbering: str(r.numbering) as LaneNumbering | undefined,
    next: num(r.next_position),
    last: num(r.last_seq),
    owner: str(r.owner),
    ownedAt: num(r.owned_at),
    queuedAt: num(r.queued_at),
    cur:
      position === undefined
        ? undefined
        : {
            position,
            seq: Number(r.cur_seq),
            prev: num(r.cur_prev),
            attemptsMade: Number(r.cur_attempts ?? 0),
            failures: str(r.cur_failures) ?? '[]',
            from: Number(r.cur_from ?? 0),
            skipped: str(r.cur_skipped),
            deliveries: Number(r.cur_deliveries ?? 0),
          },
    halt: str(r.halt),
    haltedAt: num(r.halted_at),
    retryAt: num(r.retry_at),
    gapPosition: num(r.gap_position),
    gapSince: num(r.gap_since),
    gapUntil: num(r.gap_until),
    rebase:
      rebaseAt === undefined
        ? undefined
        : {
            lane: String(r.lane),
            from: Number(r.rebase_from),
            to: Number(r.rebase_to),
            why: String(r.rebase_why) as RebaseWhy,
            at: rebaseAt,
          },
    skipped: parseSkipped(str(r.skipped)),
  };
}

/** A lane that has no row yet: no state, nothing held. */
export function emptyLaneRow(lane: string): LaneRow {
  return laneFromRecord({ lane, tail: 0 } as LaneRecord);
}

/** The `UPDATE` writing every column of `row` back (`bus` and `lane` last among the parameters). */
export function laneUpdate(table: string, bus: string, row: LaneRow): { sql: string; params: unknown[] } {
  const c = row.cur;
  const values: [string, unknown][] = [
    ['tail', row.tail],
    ['numbering', row.numbering ?? null],
    ['next_position', row.next ?? null],
    ['last_seq', row.last ?? null],
    ['owner', row.owner ?? null],
    ['owned_at', row.ownedAt ?? null],
    ['queued_at', row.queuedAt ?? null],
    ['cur_position', c?.position ?? null],
    ['cur_seq', c?.seq ?? null],
    ['cur_prev', c?.prev ?? null],
    ['cur_attempts', c?.attemptsMade ?? null],
    ['cur_failures', c?.failures ?? null],
    ['cur_from', c?.from ?? null],
    ['cur_skipped', c?.skipped ?? null],
    ['cur_deliveries', c?.deliveries ?? null],
    ['halt', row.halt ?? null],
    ['halted_at', row.haltedAt ?? null],
    ['retry_at', row.retryAt ?? null],
    ['gap_position', row.gapPosition ?? null],
    ['gap_since', row.gapSince ?? null],
    ['gap_until', row.gapUntil ?? null],
    ['rebase_from', row.rebase?.from ?? null],
    ['rebase_to', row.rebase?.to ?? null],
    ['rebase_why', row.rebase?.why ?? null],
    ['rebase_at', row.rebase?.at ?? null],
    ['skipped', formatSkipped(row.skipped)],
  ];
  return {
    sql: `UPDATE ${table} SET ${values.map(([column]) => `${column} = ?`).join(', ')} WHERE bus = ? AND lane = ?`,
    params: [...values.map(([, value]) => value), bus, row.lane],
  };
}
