import { EntitySchema } from 'typeorm';
import { bigintAsNumber } from '../../../schema/bigint-as-number.js';

/**
 * A row of `commitbus_lanes`: one ordered lane of one bus (`s|<key>` or
 * `a|<handler>|<key>`, see `ordering/lane.ts`), its numbering, who owns it,
 * whether it is queued for a worker, and its current event. The lane's
 * waiting events are rows of `commitbus_lane_events`.
 */
export interface SqlLaneRow {
  /** The bus. */
  bus: string;
  /** The lane. */
  lane: string;
  /** The last position the store numbered in this lane (0: none). */
  tail: number;
  /** Who numbers a sync lane's events (`outbox` or `transport`), set by its first event. */
  numbering: string | null;
  /** The position to handle next; null: no state yet (reads as 1). */
  nextPosition: number | null;
  /** The `seq` of the last event handled here. */
  lastSeq: number | null;
  /** The worker that owns the lane. */
  owner: string | null;
  /** When (epoch ms, database clock) its owner claimed it. */
  ownedAt: number | null;
  /** When it was queued for a worker to take; null: not queued. */
  queuedAt: number | null;
  /** The current event's position; null: none. */
  curPosition: number | null;
  /** The current event's `seq`. */
  curSeq: number | null;
  /** The `seq` of the key's event before the current one. */
  curPrev: number | null;
  /** Attempts made of the handler at `curFrom`. */
  curAttempts: number | null;
  /** Their failures, as JSON. */
  curFailures: string | null;
  /** Index in the sync chain to go on from. */
  curFrom: number | null;
  /** Why the current event had halted when an operator skipped it, as JSON. */
  curSkipped: string | null;
  /** Hand-outs of the current event since its last recorded step. */
  curDeliveries: number | null;
  /** Why the lane halted, as JSON; null: not halted. */
  halt: string | null;
  /** When it halted. */
  haltedAt: number | null;
  /** When its current event runs again. */
  retryAt: number | null;
  /** The missing position a sync lane waits for while later ones wait. */
  gapPosition: number | null;
  /** Since when it waits for it. */
  gapSince: number | null;
  /** When that wait ends (the upkeep queues the lane then). */
  gapUntil: number | null;
  /** Its last re-base: the position it waited for. */
  rebaseFrom: number | null;
  /** The position it went on from. */
  rebaseTo: number | null;
  /** Why (`no-state`, `gap`, `operator`). */
  rebaseWhy: string | null;
  /** When. */
  rebaseAt: number | null;
  /** The ranges its re-bases skipped, as JSON (`sql-lane-skipped.ts`). */
  skipped: string | null;
}

const big = (name: string) =>
  ({ name, type: 'bigint', nullable: true, transformer: bigintAsNumber }) as const;
const int = (name: string) => ({ name, type: 'integer', nullable: true }) as const;
const text = (name: string) => ({ name, type: 'text', nullable: true }) as const;

/**
 * The `commitbus_lanes` table of the SQL transport's ordering store,
 * indexed for the hand-out (queued lanes, oldest first) and the upkeep
 * (owners, due retries and gap waits). Part of `COMMITBUS_ENTITIES`.
 */
export const SqlLaneEntity = new EntitySchema<SqlLaneRow>({
  name: 'CommitbusSqlLane',
  tableName: 'commitbus_lanes',
  columns: {
    bus: { name: 'bus', type: 'varchar', length: 255, primary: true },
    lane: { name: 'lane', type: 'varchar', length: 1024, primary: true },
    tail: { name: 'tail', type: 'bigint', default: 0, transformer: bigintAsNumber },
    numbering: { name: 'numbering', type: 'varchar', length: 16, nullable: true },
    nextPosition: big('next_position'),
    lastSeq: big('last_seq'),
    owner: { name: 'owner', type: 'varchar', length: 255, nullable: true },
    ownedAt: big('owned_at'),
    queuedAt: big('queued_at'),
    curPosition: big('cur_position'),
    curSeq: big('cur_seq'),
    curPrev: big('cur_prev'),
    curAttempts: int('cur_attempts'),
    curFailures: text('cur_failures'),
    curFrom: int('cur_from'),
    curSkipped: text('cur_skipped'),
    curDeliveries: int('cur_deliveries'),
    halt: text('halt'),
    haltedAt: big('halted_at'),
    retryAt: big('retry_at'),
    gapPosition: big('gap_position'),
    gapSince: big('gap_since'),
    gapUntil: big('gap_until'),
    rebaseFrom: big('rebase_from'),
    rebaseTo: big('rebase_to'),
    rebaseWhy: { name: 'rebase_why', type: 'varchar', length: 16, nullable: true },
    rebaseAt: big('rebase_at'),
    skipped: text('skipped'),
  },
  indices: [
    { name: 'commitbus_lanes_ready', columns: ['bus', 'queuedAt'], where: 'queued_at IS NOT NULL' },
    { name: 'commitbus_lanes_owner', columns: ['bus', 'owner'], where: 'owner IS NOT NULL' },
    { name: 'commitbus_lanes_retry', columns: ['bus', 'retryAt'], where: 'retry_at IS NOT NULL' },
    { name: 'commitbus_lanes_gap', columns: ['bus', 'gapUntil'], where: 'gap_until IS NOT NULL' },
    { name: 'commitbus_lanes_halted', columns: ['bus', 'haltedAt'], where: 'halted_at IS NOT NULL' },
    { name: 'commitbus_lanes_rebased', columns: ['bus', 'rebaseAt'], where: 'rebase_at IS NOT NULL' },
  ],
});
