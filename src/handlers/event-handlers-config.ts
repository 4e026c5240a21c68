import type { Event } from '../events/event.js';
import type { BackoffOptions } from '../support/retry-policy.js';
import type { Handler, IdempotentHandler } from './handler.js';

/** A handler entry with options. */
export interface HandlerEntryOptions<E extends Event = Event> {
  /** The handler. */
  handler: Handler<E>;
  /**
   * `true` runs it inline in the drain, one after another; `false` runs it as
   * its own BullMQ job.
   * @defaultValue `false`
   */
  sync?: boolean;
  /**
   * Runs before the failure is kept for inspection (counts the first run).
   * @defaultValue `config.defaultAttempts`
   */
  attempts?: number;
  /**
   * Wait between attempts; `jitter` left out takes `config.defaultBackoff.jitter`.
   * @defaultValue `config.defaultBackoff`
   */
  backoff?: BackoffOptions;
  /**
   * Longest a run may take, in milliseconds; a run still going then counts as
   * a failed attempt (`HandlerTimeoutError`) and its `ctx.signal` is aborted.
   * `0`: no limit.
   * @defaultValue the config option `handlers.timeoutMs`
   */
  timeoutMs?: number;
  /**
   * Run effectively once per event: the run is a unit of work that records
   * (event id, handler) in `commitbus_handled`, and a redelivered event whose
   * record committed is skipped. The handler gets that unit of work as
   * `ctx.uow`: its writes through `ctx.uow.manager` commit with the record.
   * Needs the bus's `dataSource`. A handler defined with
   * `defineHandler(name, fn, { idempotent: true })` is always idempotent
   * (and gets `ctx.uow` typed as set); `false` is refused for it.
   * @defaultValue `false`, or `true` for a handler defined idempotent
   */
  idempotent?: boolean;
}

/**
 * One entry of a handling key's list, in the RFC's forms: a bare handler runs
 * async, `[handler, true]` sync, `[handler, false]` async; or an object with
 * options. A handler defined with `{ idempotent: true }` runs idempotently in
 * each form and cannot take `idempotent: false`.
 */
export type HandlerEntry<E extends Event = Event> =
  | Handler<E>
  | IdempotentHandler<E>
  | readonly [Handler<E> | IdempotentHandler<E>, boolean]
  | HandlerEntryOptions<E>
  | (Omit<HandlerEntryOptions<E>, 'handler' | 'idempotent'> & {
      /** The handler, defined with `{ idempotent: true }`. */
      handler: IdempotentHandler<E>;
      /** Always idempotent: `true` or left out. */
      idempotent?: true;
    });

/**
 * `EVENT_HANDLERS`: handling key to its ordered handlers. An event with key
 * `A.B.C` runs the handlers of `A`, then `A.B`, then `A.B.C`.
 */
// biome-ignore lint/suspicious/noExplicitAny: entries take handlers of any event class
export type EventHandlersConfig = Readonly<Record<string, readonly HandlerEntry<any>[]>>;
