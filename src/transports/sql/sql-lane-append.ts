import type { OutgoingEvent, SkippedRange } from '../../events/outgoing-event.js';
import {
  type LaneNumbering,
  OrderingPositionsMismatchError,
} from '../../ordering/errors/ordering-positions-mismatch.error.js';
import type { SqlRunner } from './sql-db.js';
import type { LaneRow } from './sql-lane-row.js';
import { skippedAt } from './sql-lane-skipped.js';
import { type LaneContext, lockLanes } from './sql-lane-tx.js';

/** Who numbers an event's lane: the publisher's outbox (a position given), or the store. */
function numberingOf(position: number | undefined): LaneNumbering {
  return position === undefined ? 'transport' : 'outbox';
}

/**
 * Takes the ordered events of one publish into their lanes, inside the
 * publishing transaction (see `LaneIntake` in `sql.event-log.ts`).
 */
export interface LaneAppender {
  /**
   * Takes an event at `position` (else the lane's next): `true` when taken,
   * `false` for a position handled already or present (a copy), the re-base
   * that skipped it for a position the lane went past (late: not taken).
   */
  append(lane: string, payload: string, position: number | undefined): Promise<boolean | SkippedRange>;
  /** Writes the lanes' numbering and tails, queues the lanes that took events; resolves to whether any did. */
  finish(): Promise<boolean>;
}

/**
 * Opens the lanes of a publish's ordered events in `tx`: locks their rows,
 * sorted (made if new), and refuses the whole publish with
 * {@link OrderingPositionsMismatchError} before anything of it is written
 * when an event numbers its lane otherwise than the lane (or an event
 * before it in the batch) does, as `publish-events.lua` does. `undefined`
 * when no event of `events` is ordered.
 */
export async function openLanes(
  ctx: LaneContext,
  tx: SqlRunner,
  events: readonly OutgoingEvent[],
): Promise<LaneAppender | undefined> {
  const ordered = events.filter((event) => event.lane !== undefined);
  if (ordered.length === 0) return undefined;
  const names = ordered.map((event) => event.lane as string);
  const rows = new Map((await lockLanes(tx, ctx, names, names)).map((row) => [row.lane, row]));
  const seen = new Map<string, LaneNumbering>();
  for (const { lane, position } of ordered) {
    const name = lane as string;
    const known = seen.get(name) ?? rows.get(name)?.numbering;
    const mine = numberingOf(position);
    if (known !== undefined && known !== mine) throw new OrderingPositionsMismatchError(name, known);
    seen.set(name, mine);
  }
  return new LaneBatch(ctx, tx, rows);
}

/** The lanes of one publish, locked: see {@link LaneAppender}. */
class LaneBatch implements LaneAppender {
  private readonly changed = new Set<LaneRow>();
  private readonly queued = new Set<LaneRow>();

  constructor(
    private readonly ctx: LaneContext,
    private readonly tx: SqlRunner,
    private readonly rows: ReadonlyMap<string, LaneRow>,
  ) {}

  async append(lane: string, payload: string, position: number | undefined): Promise<boolean | SkippedRange> {
    const row = this.rows.get(lane) as LaneRow;
    if (row.numbering === undefined) {
      row.numbering = numberingOf(position);
      this.changed.add(row);
    }
    let pos = position;
    if (pos === undefined) {
      pos = ++row.tail;
      this.changed.add(row);
    }
    // Below `next`: handled already (a copy), or skipped by a re-base (late).
    if (pos < (row.next ?? 1)) return skippedAt(row.skipped, pos) ?? false;
    const inserted = await this.tx.query(
      `INSERT INTO ${this.ctx.tables.events} (bus, lane, position, payload) VALUES (?, ?, ?, ?)
       ON CONFLICT (bus, lane, position) DO NOTHING RETURNING position`,
      [this.ctx.bus, lane, pos, payload],
    );
    if (inserted.length === 0) return false;
    this.changed.add(row);
    this.queued.add(row);
    return true;
  }

  async finish(): Promise<boolean> {
    for (const row of this.changed) {
      // Only what a publish changes: the rest of the row is the workers', and it is locked.
      const queue = this.queued.has(row) ? `, queued_at = COALESCE(queued_at, ${this.ctx.db.now})` : '';
      await this.tx.execute(
        `UPDATE ${this.ctx.tables.lanes} SET tail = ?, numbering = ?${queue} WHERE bus = ? AND lane = ?`,
        [row.tail, row.numbering ?? null, this.ctx.bus, row.lane],
      );
    }
    if (this.queued.size > 0) await this.ctx.wakeups.notifyIn(this.tx, 'lanes');
    return this.queued.size > 0;
  }
}
