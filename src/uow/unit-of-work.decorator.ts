import { UnitOfWorkDecoratorError } from './errors/unit-of-work-decorator.error.js';
import { UnitOfWork } from './unit-of-work.js';
import { runInUnitOfWork } from './unit-of-work-context.js';
import type { UnitOfWorkManager } from './unit-of-work-manager.js';

/** A service that can start units of work: what `@unitOfWork()` needs on `this`. */
export interface HasUnitOfWorks {
  /** Starts the service's units of work. */
  readonly unitOfWorks: UnitOfWorkManager;
}

/** Options of {@link unitOfWork}. */
export interface UnitOfWorkDecoratorOptions {
  /**
   * Index of the method parameter that receives the unit of work.
   * @defaultValue the last declared parameter
   */
  paramIndex?: number;
}

/**
 * Method decorator for services: the method runs in a unit of work, which it
 * receives as its last parameter. It joins the unit of work passed in, or the
 * one active in the async context, or starts one (and commits it) on
 * `this.unitOfWorks`.
 */
export function unitOfWork(options: UnitOfWorkDecoratorOptions = {}) {
  return <A extends unknown[], R>(
    _target: HasUnitOfWorks,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<(...args: A) => Promise<R>>,
  ): void => {
    const original = descriptor.value;
    if (original === undefined) {
      throw new UnitOfWorkDecoratorError(
        String(propertyKey),
        'not a method: put it on an async method of a class',
      );
    }
    const index = options.paramIndex ?? original.length - 1;
    if (index < 0) {
      throw new UnitOfWorkDecoratorError(
        String(propertyKey),
        'the method needs a parameter for the unit of work, e.g. (data, uow?: UnitOfWork), or give paramIndex',
      );
    }
    descriptor.value = function (this: HasUnitOfWorks, ...args: A): Promise<R> {
      const call = (uow: UnitOfWork) => {
        const withUow = [...args] as unknown[];
        withUow[index] = uow;
        return runInUnitOfWork(uow, () => original.apply(this, withUow as A));
      };
      const given = args[index];
      if (given instanceof UnitOfWork && given.inTransaction) return given.join(call);
      // run() joins the unit of work active on the same DataSource, or starts one.
      return this.unitOfWorks.run(call);
    };
  };
}
