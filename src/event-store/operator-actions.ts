import type { EntityManager } from 'typeorm';
import type { Logger } from '../support/logger.js';
import type { OperatorSource } from '../support/operator-action-log.js';
import type { OperatorAudit } from '../support/operator-audit.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import type { EventQueue } from './event-queue.js';
import type { AuditEntry, HistoryEvent } from './store-event.js';
import { WRITER_ROW } from './store-tables.js';

/** Who acts and why, kept in the event's audit trail (and the bus's, on a bus). */
export interface OperatorNote {
  /** Who, e.g. a user name; on a bus's trail by default this process's `user@host`. */
  readonly by?: string;
  /** Why. */
  readonly reason?: string;
  /** From where, for the bus's trail. @defaultValue `'api'` */
  readonly source?: OperatorSource;
}

/**
 * Logs an operator action done on the store and, on a store with a bus,
 * records it in the bus's audit trail (`event-store.<action>`, target
 * `v<version>`, count 1); a store without a bus only logs it. Never rejects.
 */
export async function reportOperatorAction(
  logger: Logger,
  audit: OperatorAudit | undefined,
  action: AuditEntry['action'],
  event: HistoryEvent,
  note: OperatorNote,
): Promise<void> {
  logger.warn(
    { action, v: event.v, type: event.type, by: note.by, reason: note.reason },
    `event store: operator ${action} of v${event.v} (${event.type})`,
  );
  const by = {
    ...(note.by === undefined ? {} : { actor: note.by }),
    ...(note.source === undefined ? {} : { source: note.source }),
  };
  await audit?.record(`event-store.${action}`, `v${event.v}`, 1, by);
}

/** Throws unless `v` is an event version (a whole number from 1), naming `action`. */
export function checkVersion(action: AuditEntry['action'], v: unknown): void {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1) return;
  throw new EventStoreUsageError(
    `store.${action} takes an event version, a whole number from 1 up, got ${typeof v === 'number' ? v : `a ${typeof v} (${String(v)})`}`,
  );
}

/** The event the store is halted at, if it is halted (`handled`: the handled version, when read already). */
export async function haltedEvent(
  queue: EventQueue,
  manager: EntityManager,
  known?: number,
): Promise<HistoryEvent | undefined> {
  const handled = known ?? (await queue.versions(manager)).handled;
  const [next] = await queue.history(manager, [handled + 1]);
  return next !== undefined && next.status === 'queued' && next.error !== undefined ? next : undefined;
}

/**
 * Applies one operator action to the next event to handle, in `manager`'s
 * transaction: `retry` resets its attempts (the writer tries at once),
 * `correct` replaces its data and resets them, `skip` records it as skipped
 * and moves the handled version past it.
 */
export async function operatorAction(
  queue: EventQueue,
  manager: EntityManager,
  action: AuditEntry['action'],
  v: number,
  note: OperatorNote,
  data?: string,
): Promise<HistoryEvent> {
  const { tables } = queue;
  const p = (n: number) => tables.p(n);
  // Waits for a writer handling the event right now; then the versions read below are current.
  await queue.lock(manager, v);
  const { handled } = await queue.versions(manager);
  const [event] = await queue.history(manager, [v]);
  if (event === undefined || v <= handled) {
    throw new EventStoreUsageError(
      `event v${v} ${event === undefined ? 'does not exist' : `was handled already (status ${event.status})`}: only a queued event can be ${action === 'correct' ? 'corrected' : action === 'skip' ? 'skipped' : 'retried'}`,
    );
  }
  if (action === 'skip' && v !== handled + 1) {
    throw new EventStoreUsageError(
      `event v${v} is not next (the store is at v${handled}): only the event the store is halted at, v${handled + 1}, can be skipped`,
    );
  }
  const entry: AuditEntry = {
    action,
    at: Date.now(),
    ...(note.by === undefined ? {} : { by: note.by }),
    ...(note.reason === undefined ? {} : { reason: note.reason }),
    ...(event.error === undefined ? {} : { error: event.error }),
    ...(action === 'correct' ? { previousData: event.data } : {}),
  };
  const audit = JSON.stringify([...event.audit, entry]);
  if (action === 'skip') {
    await manager.query(`UPDATE ${tables.events} SET status = 'skipped', audit = ${p(1)} WHERE v = ${p(2)}`, [
      audit,
      v,
    ]);
    const moved = await tables.rows(
      manager,
      `UPDATE ${tables.state} SET handled = ${p(1)} WHERE id = ${p(2)} AND handled = ${p(3)} RETURNING handled`,
      [v, WRITER_ROW, v - 1],
    );
    if (moved.length !== 1)
      throw new EventStoreUsageError(
        `the store moved past v${v - 1} meanwhile: look at store.halted() again`,
      );
  } else if (action === 'correct') {
    await manager.query(
      `UPDATE ${tables.events} SET data = ${p(1)}, attempts = 0, audit = ${p(2)} WHERE v = ${p(3)}`,
      [data, audit, v],
    );
  } else {
    await manager.query(`UPDATE ${tables.events} SET attempts = 0, audit = ${p(1)} WHERE v = ${p(2)}`, [
      audit,
      v,
    ]);
  }
  const [after] = await queue.history(manager, [v]);
  return after as HistoryEvent;
}
