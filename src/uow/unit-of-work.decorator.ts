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
 * What `unitOfWork()` returns: a method decorator for either compiler
 * setting, `experimentalDecorators` (prototype, key, descriptor) or standard
 * TC39 decorators (method, context), as tsx and esbuild compile by default.
 */
export interface UnitOfWorkMethodDecorator {
  /** Under `experimentalDecorators`: replaces the method on its descriptor. */
  <A extends unknown[], R>(
    target: HasUnitOfWorks,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<(...args: A) => Promise<R>>,
  ): void;
  /** As a standard (TC39) decorator: returns the method that replaces it. */
  <This extends HasUnitOfWorks, A extends unknown[], R>(
    method: (this: This, ...args: A) => Promise<R>,
    context: ClassMethodDecoratorContext<This, (this: This, ...args: A) => Promise<R>>,
  ): (this: This, ...args: A) => Promise<R>;
}

type Method = (this: HasUnitOfWorks, ...args: unknown[]) => Promise<unknown>;

/** What a standard decorator gets as its second argument (TypeScript's `DecoratorContext`). */
interface StandardContext {
  readonly kind: string;
  readonly name: string | symbol;
}

/**
 * Method decorator for services: the method runs in a unit of work, which it
 * receives as its last parameter. It joins the unit of work passed in, or the
 * one active in the async context, or starts one (and commits it) on
 * `this.unitOfWorks`. Works with `experimentalDecorators` and with standard
 * decorators alike; on anything but a method it throws
 * `UnitOfWorkDecoratorError` as the class is defined.
 */
export function unitOfWork(options: UnitOfWorkDecoratorOptions = {}): UnitOfWorkMethodDecorator {
  function decorate(target: unknown, keyOrContext: unknown, descriptor?: PropertyDescriptor): unknown {
    if (isStandardContext(keyOrContext)) {
      const member = String(keyOrContext.name);
      if (keyOrContext.kind !== 'method' || typeof target !== 'function') {
        throw new UnitOfWorkDecoratorError(
          member,
          `not a method (a ${keyOrContext.kind}): put it on an async method of a class`,
        );
      }
      return wrap(target as Method, member, options);
    }
    const member = String(keyOrContext);
    const original: unknown = descriptor?.value;
    if (descriptor === undefined || typeof original !== 'function') {
      throw new UnitOfWorkDecoratorError(member, 'not a method: put it on an async method of a class');
    }
    descriptor.value = wrap(original as Method, member, options);
    return undefined;
  }
  return decorate as UnitOfWorkMethodDecorator;
}

/** `original`, run in a unit of work handed to it at the parameter `options.paramIndex` (or its last). */
function wrap(original: Method, member: string, options: UnitOfWorkDecoratorOptions): Method {
  const index = options.paramIndex ?? original.length - 1;
  if (index < 0) {
    throw new UnitOfWorkDecoratorError(
      member,
      'the method needs a parameter for the unit of work, e.g. (data, uow?: UnitOfWork), or give paramIndex',
    );
  }
  return function (this: HasUnitOfWorks, ...args: unknown[]): Promise<unknown> {
    const call = (uow: UnitOfWork) => {
      const withUow = [...args];
      withUow[index] = uow;
      return runInUnitOfWork(uow, () => original.apply(this, withUow));
    };
    const given = args[index];
    if (given instanceof UnitOfWork && given.inTransaction) return given.join(call);
    const manager = (this as Partial<HasUnitOfWorks> | undefined)?.unitOfWorks;
    if (typeof manager?.run !== 'function') {
      return Promise.reject(
        new UnitOfWorkDecoratorError(
          member,
          'this.unitOfWorks is not a UnitOfWorkManager: the service starts its units of work there, so give it that property, e.g. constructor(readonly unitOfWorks: UnitOfWorkManager)',
        ),
      );
    }
    // run() joins the unit of work active on the same DataSource, or starts one.
    return manager.run(call);
  };
}

function isStandardContext(value: unknown): value is StandardContext {
  return (
    typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string'
  );
}
