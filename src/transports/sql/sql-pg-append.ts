import type { OutgoingEvent } from '../../events/outgoing-event.js';
import type { SqlRunner } from './sql-db.js';

/** What the one-statement append needs to know of its tables and the database. */
export interface PgAppendTarget {
  /** `commitbus_events`, qualified. */
  readonly events: string;
  /** `commitbus_event_ids`, qualified. */
  readonly ids: string;
  /** The bus. */
  readonly bus: string;
  /** The database's clock as an SQL expression (`SqlDb.now`). */
  readonly now: string;
  /** How long an accepted id is remembered. */
  readonly dedupeWindowMs: number;
  /** The `pg_notify` channel and payload of the events wake-up. */
  readonly notify: readonly [channel: string, payload: string];
}

/** One event of the append, in publishing order. */
export interface PgAppendRow {
  readonly event: OutgoingEvent;
  /** Epoch ms it is delayed to, or null when deliverable now. */
  readonly deliverAt: number | null;
  /** The first copy of its id in the batch among those going by the dedupe window. */
  readonly first: boolean;
}

/**
 * Appends `rows` (events of no lane) on PostgreSQL in ONE statement of the
 * publishing transaction `tx`: the dedupe ids are upserted in id order (two
 * transactions with the same ids wait, never deadlock; an id accepted
 * within the window is left alone), the events whose id was accepted now
 * (or that skip dedupe) are inserted in publishing order, and the events
 * wake-up `pg_notify` fires, still inside `tx` (PostgreSQL delivers it on
 * commit only), when one of them is deliverable now. Resolves to the ids
 * accepted now. What it writes is what the two INSERTs and the
 * `SELECT pg_notify` of the multi-statement path write.
 */
export async function appendOnPostgres(
  tx: SqlRunner,
  target: PgAppendTarget,
  rows: readonly PgAppendRow[],
): Promise<Set<string>> {
  const { events, ids, now } = target;
  const values = rows
    .map(() => '(?::int, ?::varchar, ?::text, ?::bigint, ?::boolean, ?::boolean)')
    .join(', ');
  const params: unknown[] = rows.flatMap(({ event, deliverAt, first }, ord) => [
    ord,
    event.id,
    event.payload,
    deliverAt,
    event.skipDedupe !== true,
    first,
  ]);
  // Data-modifying CTEs all run, read or not; `added` sees what `accepted` returned.
  const sql = `WITH input (ord, event_id, payload, deliver_at, dedupe, first) AS (VALUES ${values}),
    accepted AS (
      INSERT INTO ${ids} (bus, event_id, expires_at)
      SELECT ?, event_id, ${now} + ? FROM input WHERE dedupe AND first ORDER BY event_id
      ON CONFLICT (bus, event_id) DO UPDATE SET expires_at = excluded.expires_at
      WHERE ${ids}.expires_at <= ${now}
      RETURNING event_id),
    added AS (
      INSERT INTO ${events} (bus, event_id, payload, deliver_at, created_at, deliveries)
      SELECT ?, i.event_id, i.payload, i.deliver_at, ${now}, 0 FROM input i
      WHERE NOT i.dedupe OR (i.first AND i.event_id IN (SELECT event_id FROM accepted))
      ORDER BY i.ord
      RETURNING deliver_at)
    SELECT event_id FROM accepted
    UNION ALL
    SELECT NULL FROM (SELECT pg_notify(?, ?) FROM (SELECT 1 FROM added WHERE deliver_at IS NULL LIMIT 1) d) w`;
  params.push(target.bus, target.dedupeWindowMs, target.bus, ...target.notify);
  const result = await tx.query<{ event_id: string | null }>(sql, params);
  const accepted = new Set<string>();
  for (const row of result) if (row.event_id !== null) accepted.add(row.event_id);
  return accepted;
}
