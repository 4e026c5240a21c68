import {
  DispatchOp,
  type EventStore,
  SendEventOp,
  type UnitOfWork,
  type UnitOfWorkManager,
  unitOfWork,
} from '../../src/index.js';
import { Record } from './entities.js';
import { RecordCreatedEvent, RecordDeletedEvent, RecordPublishedEvent } from './events.js';

/** Error for a record that does not exist. */
export class RecordNotFoundError extends Error {
  constructor(recid: string) {
    super(`record ${recid} does not exist`);
    this.name = 'RecordNotFoundError';
  }
}

/** The service layer: each method is one unit of work that publishes its events after commit. */
export class RecordService {
  constructor(
    readonly unitOfWorks: UnitOfWorkManager,
    readonly views: EventStore,
  ) {}

  /**
   * Records a view of a record: `RECORD.VIEWED` is dispatched to the event
   * store in this unit of work, so it is queued only if the record exists and
   * the transaction commits; the store's writer then reduces it into
   * `record_views` (see views.ts).
   */
  @unitOfWork()
  async view(recid: string, uow?: UnitOfWork): Promise<DispatchOp> {
    if (!(await uow!.manager.existsBy(Record, { recid }))) throw new RecordNotFoundError(recid);
    const op = new DispatchOp(this.views, 'RECORD.VIEWED', { recid });
    uow!.register(op);
    return op;
  }

  /** Creates a record and publishes `RECORD.CREATE` after commit. */
  @unitOfWork()
  async create(recid: string, title: string, uow?: UnitOfWork): Promise<Record> {
    const record = uow!.manager.create(Record, { recid, title, published: false });
    await uow!.manager.insert(Record, record);
    uow!.register(new SendEventOp(RecordCreatedEvent.create({ recid, title })));
    return record;
  }

  /** Publishes a record and announces it with `RECORD.PUBLISH` after commit. */
  @unitOfWork()
  async publish(recid: string, uow?: UnitOfWork): Promise<void> {
    const { affected } = await uow!.manager.update(Record, { recid }, { published: true });
    if (!affected) throw new RecordNotFoundError(recid);
    uow!.register(new SendEventOp(RecordPublishedEvent.create({ recid })));
  }

  /** Deletes a record and publishes `RECORD.DELETE` after commit. */
  @unitOfWork()
  async delete(recid: string, uow?: UnitOfWork): Promise<void> {
    const { affected } = await uow!.manager.delete(Record, { recid });
    if (!affected) throw new RecordNotFoundError(recid);
    uow!.register(new SendEventOp(RecordDeletedEvent.create({ recid })));
  }
}
