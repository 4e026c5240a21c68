import type { Event } from '../events/event.js';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import { HandlerConfigError } from './errors/handler-config.error.js';

/** What a handler gets besides the event. */
export interface HandlerContext {
  /** The handler's name. */
  readonly handlerName: string;
  /** 1 on the first run, 2 on the first retry, and so on. */
  readonly attempt: number;
  /**
   * Aborted when the run reaches its timeout (`timeoutMs` of the entry, or
   * the config option `handlers.timeoutMs`), with the `HandlerTimeoutError` as its reason.
   * Pass it to `fetch` and other I/O so a run that timed out stops.
   */
  readonly signal: AbortSignal;
  /** Publishes follow-up events (outside any unit of work). */
  publish(events: Event | readonly Event[]): Promise<void>;
  /**
   * For idempotent handlers: the unit of work the run is recorded in. Write
   * through `uow.manager` and register follow-up events with
   * `uow.register(new SendEventOp(...))`: all of it commits with the record.
   * Set only when the entry runs idempotently; a handler defined with
   * `{ idempotent: true }` gets {@link IdempotentHandlerContext}, where it is
   * always set.
   */
  readonly uow?: UnitOfWork;
}

/**
 * The context of a handler defined with `defineHandler(name, fn, { idempotent: true })`:
 * its run is always recorded in a unit of work, so `uow` is always set.
 */
export interface IdempotentHandlerContext extends HandlerContext {
  /**
   * The unit of work the run is recorded in: writes through `uow.manager` and
   * events registered with `uow.register(new SendEventOp(...))` commit with
   * the record that the event was handled, or not at all.
   */
  readonly uow: UnitOfWork;
}

/** The function of a handler: `C` is {@link IdempotentHandlerContext} for idempotent handlers. */
export type HandlerFn<E extends Event = Event, C extends HandlerContext = HandlerContext> = (
  event: E,
  ctx: C,
) => void | Promise<void>;

const HANDLER = Symbol.for('commitbus.handler');

/**
 * A named handler of events of class `E`; the name is its stable identity in
 * queues and logs. A handler of a base class (`Handler<RecordEvent>`) may be
 * listed for its subclasses; a handler of a subclass may not be listed for
 * its base, nor for an unrelated class (the event parameter is checked
 * contravariantly).
 */
export interface Handler<E extends Event = Event, C extends HandlerContext = HandlerContext> {
  /** Stable name, e.g. `notifications.send`. */
  readonly name: string;
  /**
   * Whether it was defined with `{ idempotent: true }`: then every listing of
   * it runs idempotently, in a unit of work given as `ctx.uow`.
   */
  readonly idempotent: boolean;
  /** Runs the handler. */
  readonly handle: HandlerFn<E, C>;
  /**
   * The brand that tells handlers from other values: a private symbol, so
   * only `defineHandler` makes a `Handler`. Kept in the published
   * declarations (not stripped as internal), so a hand-made object does not compile.
   */
  readonly [HANDLER]: true;
}

/**
 * A handler defined with `defineHandler(name, fn, { idempotent: true })`: it
 * always runs idempotently and its `ctx.uow` is always set. It cannot be
 * listed with `idempotent: false`.
 */
export interface IdempotentHandler<E extends Event = Event> extends Handler<E, IdempotentHandlerContext> {
  /** Always `true`. */
  readonly idempotent: true;
}

/** Options of {@link defineHandler}. */
export interface DefineHandlerOptions {
  /**
   * Makes the handler idempotent wherever it is listed (as the entry option
   * `idempotent: true` does for one entry), and types its `ctx.uow` as always
   * set. Needs the bus's `dataSource`.
   * @defaultValue `false`
   */
  readonly idempotent?: boolean;
}

// Names go into job ids, Redis keys and rule fields: a small alphabet is safe in all of them.
const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

/**
 * Defines a handler: `defineHandler('notifications.send', async (event: RecordPublishedEvent, ctx) => {...})`.
 * The name may use letters, digits, `_`, `.` and `-`. With `{ idempotent: true }`
 * it runs effectively once per event and `ctx.uow` is typed as always set:
 * `defineHandler('search.index', async (event, ctx) => ctx.uow.manager..., { idempotent: true })`.
 */
export function defineHandler<E extends Event = Event>(
  name: string,
  fn: HandlerFn<E, IdempotentHandlerContext>,
  options: DefineHandlerOptions & { readonly idempotent: true },
): IdempotentHandler<E>;
export function defineHandler<E extends Event = Event>(
  name: string,
  fn: HandlerFn<E>,
  options?: DefineHandlerOptions & { readonly idempotent?: false },
): Handler<E>;
export function defineHandler<E extends Event = Event>(
  name: string,
  fn: HandlerFn<E, IdempotentHandlerContext>,
  options: DefineHandlerOptions = {},
): Handler<E> | IdempotentHandler<E> {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    throw new HandlerConfigError(
      `handler name ${JSON.stringify(name)} is invalid: use letters, digits, "_", "." or "-"`,
    );
  }
  if (typeof fn !== 'function') {
    throw new HandlerConfigError(
      `handler ${name}: expected a function, got ${typeof fn}: pass defineHandler(name, async (event, ctx) => {...})`,
    );
  }
  checkOptionNames(name, options);
  const idempotent = options?.idempotent ?? false;
  if (typeof idempotent !== 'boolean') {
    throw new HandlerConfigError(`handler ${name}: options.idempotent must be true or false`);
  }
  // A plain handler's fn is only ever called with a HandlerContext; the cast is the overloads' promise.
  const handle = fn as HandlerFn<E>;
  return Object.freeze({ name, idempotent, handle, [HANDLER]: true as const });
}

// The entry options a handler's definition cannot take: they belong where it is listed.
const ENTRY_OPTIONS = new Set(['sync', 'attempts', 'backoff', 'timeoutMs']);

/** Refuses an option `defineHandler` does not know, rather than ignoring it. */
function checkOptionNames(name: string, options: DefineHandlerOptions | undefined): void {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') {
    throw new HandlerConfigError(`handler ${name}: options must be an object, got ${typeof options}`);
  }
  for (const key of Object.keys(options)) {
    if (key === 'idempotent') continue;
    const where = ENTRY_OPTIONS.has(key)
      ? `${key} is an option of the handler's entry where it is listed: { handler, ${key} } in the handlers config`
      : 'the only option is idempotent';
    throw new HandlerConfigError(`handler ${name}: unknown option ${JSON.stringify(key)}; ${where}`);
  }
}

/** Whether a value was made by {@link defineHandler}. */
export function isHandler(value: unknown): value is Handler {
  return typeof value === 'object' && value !== null && HANDLER in value;
}
