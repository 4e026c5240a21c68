import type { AppendResult, OutgoingEvent } from '../../events/outgoing-event.js';
import { holdsTransactionGate } from '../../uow/transaction-gate.js';
import type { SqlDb, SqlRunner } from './sql-db.js';

/** Appends waiting for one transaction, at most. */
const GROUP_MAX = 64;

interface Waiting {
  readonly events: readonly OutgoingEvent[];
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit of appends on SQLite, whose writes are serialized anyway:
 * appends that come while one transaction is being written wait for it and
 * then go together in the next, each in a savepoint of its own, so one that
 * fails is rolled back and rejected alone, and each resolves (in the order
 * they came) once the transaction committed. The outcome of each is what it
 * would be run alone, one after the other; a file commit (a sync of the
 * WAL) is shared by the group instead of paid by each. An append from work
 * that holds the transaction gate (it runs in the holder's transaction)
 * does not wait: it runs at once, as a savepoint of that transaction.
 */
export class SqlGroupAppend {
  private readonly waiting: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly db: SqlDb,
    private readonly appendWith: (tx: SqlRunner, events: readonly OutgoingEvent[]) => Promise<AppendResult>,
  ) {}

  /** Appends `events` in a transaction shared with the appends waiting now. */
  append(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    if (holdsTransactionGate(this.db.dataSource)) {
      return this.db.transaction((tx) => this.appendWith(tx, events));
    }
    // Tracked: closing the transport waits for an append waiting here too.
    return this.db.track(
      new Promise<AppendResult>((resolve, reject) => {
        this.waiting.push({ events, resolve, reject });
        if (!this.writing) void this.write();
      }),
    );
  }

  private async write(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) await this.commitGroup(this.waiting.splice(0, GROUP_MAX));
    } finally {
      this.writing = false;
    }
  }

  /** One transaction for `group`; every append settles after it ended. */
  private async commitGroup(group: readonly Waiting[]): Promise<void> {
    const outcomes: ({ ok: AppendResult } | { error: unknown })[] = [];
    try {
      await this.db.transaction(async (tx) => {
        if (group.length === 1 && group[0] !== undefined) {
          outcomes.push({ ok: await this.appendWith(tx, group[0].events) });
          return;
        }
        for (const { events } of group) outcomes.push(await this.inSavepoint(tx, events));
      });
    } catch (error) {
      for (const w of group) w.reject(error);
      return;
    }
    group.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome !== undefined && 'ok' in outcome) w.resolve(outcome.ok);
      else w.reject(outcome?.error);
    });
  }

  private async inSavepoint(
    tx: SqlRunner,
    events: readonly OutgoingEvent[],
  ): Promise<{ ok: AppendResult } | { error: unknown }> {
    await tx.execute('SAVEPOINT commitbus_append');
    try {
      const ok = await this.appendWith(tx, events);
      await tx.execute('RELEASE commitbus_append');
      return { ok };
    } catch (error) {
      await tx.execute('ROLLBACK TO commitbus_append');
      await tx.execute('RELEASE commitbus_append');
      return { error };
    }
  }
}
