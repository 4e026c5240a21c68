import { Event } from '../events/event.js';
import { type EventClass, handlingKeyOf, isHandlingKey } from '../events/event-type.decorator.js';
import { describeValue } from './describe-value.js';
import { HandlerConfigError } from './errors/handler-config.error.js';
import type { EventHandlersConfig, HandlerEntryOptions } from './event-handlers-config.js';
import { type Handler, type IdempotentHandler, isHandler } from './handler.js';

/**
 * Options of one handler listed with {@link HandlersBuilder.on}: those of a
 * map entry ({@link HandlerEntryOptions}) without `handler`.
 */
export type HandlerOptions = Omit<HandlerEntryOptions, 'handler'>;

/** One `on(...)` call: where, for which class if one was given, and the entry. */
interface Listing {
  readonly key: string;
  readonly eventClass: EventClass | undefined;
  readonly entry: HandlerEntryOptions;
}

// The classes each built config was listed with, checked against the bus's registry.
const boundClasses = new WeakMap<EventHandlersConfig, ReadonlyMap<string, EventClass>>();

/**
 * Builds `EVENT_HANDLERS` with each handler typed by its event class:
 *
 * ```ts
 * export const EVENT_HANDLERS = handlers()
 *   .on(RecordEvent, countMetrics, { sync: true })     // key RECORD: every RECORD.* event
 *   .on(RecordPublishedEvent, sendNotification)         // Handler<RecordPublishedEvent> or of a base class
 *   .on(RecordPublishedEvent, indexRecord)              // defined with { idempotent: true }
 *   .build();
 * ```
 *
 * Listing a handler of another class (`Handler<OrderPaid>` for `UserCreated`),
 * or of a subclass for its base, fails to compile. The class must carry
 * `@EventType(...)` (checked at once) and be the class the bus registers for
 * its key, or a base of registered ones; every class the bus registers with
 * its key or one below it must be it or extend it (checked when the bus is
 * built).
 * Immutable: each `on` returns a new builder.
 */
export class HandlersBuilder {
  private constructor(private readonly listings: readonly Listing[]) {}

  /** An empty builder; the same as {@link handlers}. */
  static empty(): HandlersBuilder {
    return new HandlersBuilder([]);
  }

  /** Lists a handler defined with `{ idempotent: true }`; it cannot be listed with `idempotent: false`. */
  on<E extends Event = Event>(
    target: EventClass<E> | string,
    handler: IdempotentHandler<NoInfer<E>>,
    options?: HandlerOptions & { readonly idempotent?: true },
  ): HandlersBuilder;
  /**
   * Lists `handler` for the events of `target`: an event class (its handling
   * key, and so the keys below it), whose instances the handler must take
   * (it may be typed by a base class); or a handling key or prefix of keys
   * (`'RECORD'`). TypeScript cannot see which classes a key names, so under a
   * key the handler must take any `Event`, unless you state a common base:
   * `on<RecordEvent>('RECORD', h)`. Prefer `on(RecordEvent, h)` when the base
   * class carries the key.
   */
  on<E extends Event = Event>(
    target: EventClass<E> | string,
    handler: Handler<NoInfer<E>>,
    options?: HandlerOptions,
  ): HandlersBuilder;
  on(
    target: string | EventClass,
    handler: Handler | IdempotentHandler,
    options: HandlerOptions = {},
  ): HandlersBuilder {
    const { key, eventClass } = keyOf(target);
    if (!isHandler(handler)) {
      throw new HandlerConfigError(
        `handlers().on(${describeTarget(target)}): expected a handler made by defineHandler('name', fn), got ${describeValue(handler)}`,
      );
    }
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new HandlerConfigError(
        `handlers().on(${describeTarget(target)}, ${handler.name}): options must be an object, got ${describeValue(options)}`,
      );
    }
    const entry: HandlerEntryOptions = { ...options, handler };
    return new HandlersBuilder([...this.listings, { key, eventClass, entry }]);
  }

  /**
   * The `EVENT_HANDLERS` map for `createEventBus({ handlers })`: each key's
   * handlers in the order they were listed. An event with key `A.B.C` runs
   * those of `A`, then `A.B`, then `A.B.C`, whatever the order of the `on` calls.
   */
  build(): EventHandlersConfig {
    const byKey = new Map<string, HandlerEntryOptions[]>();
    const classes = new Map<string, EventClass>();
    for (const { key, eventClass, entry } of this.listings) {
      const known = classes.get(key);
      if (eventClass !== undefined && known !== undefined && known !== eventClass) {
        throw new HandlerConfigError(
          `handlers(): ${known.name} and ${eventClass.name} both have handling key ${JSON.stringify(key)}; one key, one event class`,
        );
      }
      if (eventClass !== undefined) classes.set(key, eventClass);
      const entries = byKey.get(key) ?? [];
      entries.push(entry);
      byKey.set(key, entries);
    }
    const config: EventHandlersConfig = Object.freeze(
      Object.fromEntries([...byKey].map(([key, entries]) => [key, Object.freeze(entries)])),
    );
    boundClasses.set(config, classes);
    return config;
  }
}

/** Starts a typed `EVENT_HANDLERS`: `handlers().on(RecordCreatedEvent, notify).build()`. See {@link HandlersBuilder}. */
export function handlers(): HandlersBuilder {
  return HandlersBuilder.empty();
}

/** @internal The classes a config built by {@link HandlersBuilder} listed handlers for, by key. */
export function boundClassesOf(config: EventHandlersConfig): ReadonlyMap<string, EventClass> {
  return boundClasses.get(config) ?? new Map();
}

function keyOf(target: unknown): { key: string; eventClass: EventClass | undefined } {
  if (typeof target === 'string') {
    if (!isHandlingKey(target)) {
      throw new HandlerConfigError(
        `handlers().on(${JSON.stringify(target)}): not a handling key; use dotted segments of letters, digits, "_" and "-", e.g. 'RECORD.CREATE'`,
      );
    }
    return { key: target, eventClass: undefined };
  }
  if (typeof target !== 'function') {
    throw new HandlerConfigError(
      `handlers().on(...): expected an event class or a handling key, got ${describeValue(target)}`,
    );
  }
  const eventClass = target as EventClass;
  if (!(eventClass.prototype instanceof Event)) {
    throw new HandlerConfigError(
      `handlers().on(${describeTarget(target)}): ${describeTarget(target)} is not an event class; pass a class extending Event, decorated with @EventType('TYPE.ACTION')`,
    );
  }
  const key = handlingKeyOf(eventClass);
  if (key === undefined) {
    throw new HandlerConfigError(
      `handlers().on(${describeTarget(target)}): ${describeTarget(target)} has no handling key; decorate it with @EventType('TYPE.ACTION') and pass it to the bus's events`,
    );
  }
  return { key, eventClass };
}

function describeTarget(target: unknown): string {
  if (typeof target === 'function') return target.name || '(anonymous class)';
  return typeof target === 'string' ? JSON.stringify(target) : describeValue(target);
}
