import { SendEventOp, type UnitOfWork, type UnitOfWorkManager, unitOfWork } from '../../src/index.js';
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
  constructor(readonly unitOfWorks: UnitOfWorkManager) {}

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
