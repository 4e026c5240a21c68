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
   * config `handlerTimeoutMs`), with the `HandlerTimeoutError` as its reason.
   * Pass it to `fetch` and other I/O so a run that timed out stops.
   */
  readonly signal: AbortSignal;
  /** Publishes follow-up events (outside any unit of work). */
  publish(events: Event | readonly Event[]): Promise<void>;
  /**
   * For idempotent handlers: the unit of work the run is recorded in. Write
   * through `uow.manager` and register follow-up events with
   * `uow.register(new SendEventOp(...))`: all of it commits with the record.
   */
  readonly uow?: UnitOfWork;
}

/** The function of a handler. */
export type HandlerFn<E extends Event = Event> = (event: E, ctx: HandlerContext) => void | Promise<void>;

const HANDLER = Symbol.for('commitbus.handler');

/** A named handler; the name is its stable identity in queues and logs. */
export interface Handler<E extends Event = Event> {
  /** Stable name, e.g. `notifications.send`. */
  readonly name: string;
  /** Runs the handler. */
  handle(event: E, ctx: HandlerContext): void | Promise<void>;
  /** @internal brand that tells handlers from other values. */
  readonly [HANDLER]: true;
}

// Names go into job ids, Redis keys and rule fields: a small alphabet is safe in all of them.
const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

/**
 * Defines a handler: `defineHandler('notifications.send', async (event, ctx) => {...})`.
 * The name may use letters, digits, `_`, `.` and `-`.
 */
export function defineHandler<E extends Event = Event>(name: string, fn: HandlerFn<E>): Handler<E> {
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
  return Object.freeze({ name, handle: fn, [HANDLER]: true as const });
}

/** Whether a value was made by {@link defineHandler}. */
export function isHandler(value: unknown): value is Handler {
  return typeof value === 'object' && value !== null && HANDLER in value;
}
