import { Column, type DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { resolveOptions } from '../../src/config/resolve-options.js';
import type { AppendResult, OutgoingEvent } from '../../src/events/outgoing-event.js';
import {
  Event,
  EventType,
  type Operation,
  SendEventOp,
  type UnitOfWork,
  type UnitOfWorkManager,
  unitOfWork,
} from '../../src/index.js';
import { silentLogger } from '../../src/support/logger.js';
import { SqlTransport } from '../../src/transports/sql/sql.transport.js';
import { ownedSqliteDataSource } from '../../src/transports/sql/sqlite-owned-data-source.js';

/** The table the record services of the tests write. */
@Entity('records')
export class RecordRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', unique: true })
  recid!: string;
}

@EventType('RECORD.CREATE')
export class RecordCreated extends Event {
  recid!: string;
}

@EventType('RECORD.UPDATE')
export class RecordUpdated extends Event {
  recid!: string;
}

/** Registered with no bus: registering it in a unit of work must fail. */
@EventType('RECORD.DELETE')
export class RecordDeleted extends Event {
  recid!: string;
}

/** What one call of `Transport.publish` carried. */
export interface PublishedEvent {
  key: string;
  id: string;
  recid: string;
}

/**
 * The embedded transport (SQLite in memory), recording each `publish` call
 * as one batch. Its first `failFirst` publishes throw, as a transport whose
 * broker is away would.
 */
export class RecordingTransport extends SqlTransport {
  readonly batches: PublishedEvent[][] = [];
  attempts = 0;

  constructor(private readonly failFirst = 0) {
    const { dataSource, owner } = ownedSqliteDataSource(':memory:');
    super({ dataSource, pollMs: 20 }, resolveOptions(), silentLogger, owner);
  }

  override async publish(events: readonly OutgoingEvent[]): Promise<AppendResult> {
    this.attempts++;
    if (this.attempts <= this.failFirst) throw new Error(`broker unreachable (attempt ${this.attempts})`);
    const result = await super.publish(events);
    this.batches.push(
      events.map(({ payload }) => {
        const { key, event } = JSON.parse(payload) as { key: string; event: { id: string; recid: string } };
        return { key, id: event.id, recid: event.recid };
      }),
    );
    return result;
  }

  /** Every published event, batches flattened, as `KEY:recid`. */
  sent(): string[] {
    return this.batches.flat().map((e) => `${e.key}:${e.recid}`);
  }
}

/** Writes a row and registers its `RECORD.CREATE` event, as a service would. */
export async function createRecord(uow: UnitOfWork, recid: string): Promise<RecordCreated> {
  await uow.manager.insert(RecordRow, { recid });
  const event = RecordCreated.create({ recid });
  uow.register(new SendEventOp(event));
  return event;
}

/** The committed rows' recids in insertion order, read outside any transaction. */
export async function committedRecids(dataSource: DataSource): Promise<string[]> {
  const found = await dataSource.getRepository(RecordRow).find({ order: { id: 'ASC' } });
  return found.map((row) => row.recid);
}

/** A service using `@unitOfWork()`; `seen` lists the unit of work each call received. */
export class RecordService {
  readonly seen: UnitOfWork[] = [];
  constructor(readonly unitOfWorks: UnitOfWorkManager) {}

  @unitOfWork()
  async create(recid: string, uow?: UnitOfWork): Promise<RecordCreated> {
    this.seen.push(uow!);
    return createRecord(uow!, recid);
  }
}

/**
 * An operation with every hook, each pushing its call to `calls`; the commit and
 * rollback hooks add how many rows `countRows` sees then.
 */
export function hookRecorder(name: string, calls: string[], countRows: () => Promise<number>): Operation {
  return {
    onRegister: () => void calls.push(`${name}.onRegister`),
    onCommit: async () => void calls.push(`${name}.onCommit rows=${await countRows()}`),
    onPostCommit: () => void calls.push(`${name}.onPostCommit`),
    onException: (_uow, error) => void calls.push(`${name}.onException ${(error as Error).message}`),
    onRollback: async () => void calls.push(`${name}.onRollback rows=${await countRows()}`),
    onPostRollback: () => void calls.push(`${name}.onPostRollback`),
  };
}
