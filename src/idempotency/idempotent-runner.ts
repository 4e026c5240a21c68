import type { DataSource } from 'typeorm';
import { LessThan } from 'typeorm';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import { UnitOfWorkManager } from '../uow/unit-of-work-manager.js';
import { IdempotencyNotConfiguredError } from './errors/idempotency-not-configured.error.js';
import { HandledEventEntity } from './handled-event.entity.js';

/** What an idempotent run did. */
export type IdempotentOutcome = 'ran' | 'skipped';

/**
 * Runs idempotent handlers effectively once per event: each run is a unit of
 * work that first records (event id, handler) in `commitbus_handled`, then
 * runs the handler; the record, the handler's writes through `uow.manager`
 * and the events it registers commit together or not at all. A redelivered
 * event finds the record and is skipped; a concurrent duplicate waits on the
 * record's row lock and is skipped once the first commits.
 */
export class IdempotentRunner {
  private readonly uows: UnitOfWorkManager;

  constructor(
    private readonly dataSource: DataSource,
    bus: UnitOfWorkBus,
  ) {
    this.uows = new UnitOfWorkManager({ dataSource, bus });
  }

  /** Runs `fn` for (`eventId`, `handler`) unless a run already committed. */
  async run(
    eventId: string,
    handler: string,
    fn: (uow: UnitOfWork) => Promise<void>,
  ): Promise<IdempotentOutcome> {
    if (!this.dataSource.hasMetadata(HandledEventEntity)) {
      throw new IdempotencyNotConfiguredError(
        handler,
        'the DataSource does not know the commitbus_handled entity',
      );
    }
    let alreadyDone = false;
    try {
      await this.uows.run(async (uow) => {
        try {
          await uow.manager
            .createQueryBuilder()
            .insert()
            .into(HandledEventEntity)
            .values({ eventId, handler, handledAt: Date.now() })
            .updateEntity(false)
            .execute();
        } catch (error) {
          alreadyDone = isUniqueViolation(error);
          throw error;
        }
        await fn(uow);
      });
      return 'ran';
    } catch (error) {
      if (alreadyDone) return 'skipped';
      if (isMissingTable(error)) {
        throw new IdempotencyNotConfiguredError(handler, 'the commitbus_handled table does not exist', {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** Whether (`eventId`, `handler`) has a committed run. */
  async isDone(eventId: string, handler: string): Promise<boolean> {
    return (await this.dataSource.getRepository(HandledEventEntity).countBy({ eventId, handler })) > 0;
  }

  /** Deletes completion records older than `ms`; resolves to how many. */
  async forgetOlderThan(ms: number): Promise<number> {
    const result = await this.dataSource
      .getRepository(HandledEventEntity)
      .delete({ handledAt: LessThan(Date.now() - ms) });
    return result.affected ?? 0;
  }
}

// The record's primary key is what makes a second run of the same (event, handler) fail.
function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | undefined)?.driverError;
  const code = String(driverError?.code ?? '');
  return code === '23505' || code.startsWith('SQLITE_CONSTRAINT');
}

function isMissingTable(error: unknown): boolean {
  return /relation .*commitbus_handled.* does not exist|no such table: .*commitbus_handled/i.test(
    String((error as Error | undefined)?.message),
  );
}
