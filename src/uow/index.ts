export { NestedTransactionError } from './errors/nested-transaction.error.js';
export { NestedUnitOfWorkFailedError } from './errors/nested-unit-of-work-failed.error.js';
export { NoBusError } from './errors/no-bus.error.js';
export { NoDataSourceError } from './errors/no-data-source.error.js';
export { PublishAfterCommitError } from './errors/publish-after-commit.error.js';
export { TransactionAbortedError } from './errors/transaction-aborted.error.js';
export { UnitOfWorkClosedError } from './errors/unit-of-work-closed.error.js';
export { UnitOfWorkDecoratorError } from './errors/unit-of-work-decorator.error.js';
export { UnitOfWorkHooksError } from './errors/unit-of-work-hooks.error.js';
export type { Operation } from './operation.js';
export { SendEventOp } from './send-event.op.js';
export {
  type HasUnitOfWorks,
  type UnitOfWorkDecoratorOptions,
  type UnitOfWorkMethodDecorator,
  unitOfWork,
} from './unit-of-work.decorator.js';
export { UnitOfWork } from './unit-of-work.js';
export type { UnitOfWorkBus } from './unit-of-work-bus.js';
export { currentUnitOfWork } from './unit-of-work-context.js';
export { UnitOfWorkManager, type UnitOfWorkOptions, withUnitOfWork } from './unit-of-work-manager.js';
