export { NoBusError } from './errors/no-bus.error.js';
export { PublishAfterCommitError } from './errors/publish-after-commit.error.js';
export type { Operation } from './operation.js';
export { SendEventOp } from './send-event.op.js';
export {
  type HasUnitOfWorks,
  type UnitOfWorkDecoratorOptions,
  unitOfWork,
} from './unit-of-work.decorator.js';
export { UnitOfWork } from './unit-of-work.js';
export type { UnitOfWorkBus } from './unit-of-work-bus.js';
export { currentUnitOfWork } from './unit-of-work-context.js';
export { UnitOfWorkManager, type UnitOfWorkOptions, withUnitOfWork } from './unit-of-work-manager.js';
