import type { EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import type { ReducerResult, RowKey } from './reducer-result.js';
import type { HistoryEvent, ModelResults, StoreEvent, StoreEventInput } from './store-event.js';

/** What every step of the cycle gets beside the event. */
export interface CycleContext {
  /** The cycle's transaction: read and write only through it. */
  readonly manager: EntityManager;
  /**
   * The cycle's unit of work on the bus: `ctx.uow.register(new SendEventOp(e))`
   * sends `e` through the outbox once the event's transaction commits (never
   * when it rolls back, nor during a replay). Throws when the store has no bus.
   */
  readonly uow: UnitOfWork;
  /** Adds a sub-event, handled depth-first after the current event's derivers. */
  addEvent(type: string, data?: unknown): void;
  /** True while {@link EventStore.replay} rebuilds tables from history. */
  readonly replaying: boolean;
}

/** A reducer's context: the cycle's, plus its own model's table in the transaction. */
export interface ReduceContext<T extends ObjectLiteral> extends CycleContext {
  /**
   * The model's row with this primary key (a value, or an object of the
   * primary columns), or `undefined`: as of the previous event. Served from
   * the writer's batch cache, so prefer it to `repository` for reads by key.
   */
  get(key: RowKey<T>): Promise<T | undefined>;
  /** The model's table, as of the previous event (all reducers see the same state). */
  readonly repository: Repository<T>;
}

/**
 * Turns one event into a description of its model's changes. Pure: given the
 * same state and event it returns the same result; it writes nothing itself.
 * The event is frozen. Return `{ esFail: reason }` to reject the event.
 */
export type Reducer<T extends ObjectLiteral, D = unknown> = (
  event: StoreEvent<D>,
  ctx: ReduceContext<T>,
) => ReducerResult<T> | undefined | Promise<ReducerResult<T> | undefined>;

/**
 * A preprocessor: returns a canonical form of the event (its data, and a
 * `type` only when some model knows it), or nothing to keep it. Never
 * changes `v`. The event it gets is frozen.
 */
export type Preprocessor<T extends ObjectLiteral> = (
  event: StoreEvent,
  ctx: ReduceContext<T>,
) => StoreEventInput | undefined | Promise<StoreEventInput | undefined>;

/** What a deriver gets: the event with every model's result, after they were applied. */
export interface Derivation<T extends ObjectLiteral> extends ReduceContext<T> {
  /** The event being handled (a sub-event carries its parent's `v`). */
  readonly event: StoreEvent;
  /** Every model's result for it, by model name. */
  readonly result: ModelResults;
  /** This model's own result, if its reducer returned one. */
  readonly own: ReducerResult<T> | undefined;
  /** Writes `result` to this model's table the way the apply step does (batched, through the cache). */
  apply(result: ReducerResult<T>): Promise<void>;
}

/** A deriver: computes secondary state from the applied results; may write through `ctx.manager`. */
export type Deriver<T extends ObjectLiteral> = (derivation: Derivation<T>) => void | Promise<void>;

/** A transact callback's context: dispatch sub-events and wait for their outcome. */
export interface TransactContext<T extends ObjectLiteral> extends ReduceContext<T> {
  /** The event being handled. */
  readonly event: StoreEvent;
  /**
   * Handles a sub-event in this transaction, after the ones dispatched
   * before it (awaited or not), and resolves with its record. Every
   * dispatch runs before the callback's step ends; one that fails or is
   * invalid rejects with a coded error and fails the event. Refused once
   * the callback settled.
   */
  dispatch(type: string, data?: unknown): Promise<SubEventRecordView>;
}

/** A handled sub-event as `transact`'s dispatch returns it. */
export interface SubEventRecordView {
  /** Its type. */
  readonly type: string;
  /** Its data after preprocessing. */
  readonly data: unknown;
  /** Every model's result. */
  readonly result: ModelResults;
}

/** A transact callback: runs after sub-events, may dispatch more and read their results. */
export type Transact<T extends ObjectLiteral> = (ctx: TransactContext<T>) => void | Promise<void>;

/** Applies one model's result itself (through `ctx.manager`), instead of the built-in `set`/`ins`/`upd`/`sav`/`rm`. */
export type ApplyResult<T extends ObjectLiteral> = (
  result: ReducerResult<T>,
  ctx: ReduceContext<T>,
) => void | Promise<void>;

/**
 * One model: the table it owns (a TypeORM entity) and the functions that keep
 * it. Reducers are listed by event type; that list is how the store knows an
 * event type.
 */
export interface EventModel<T extends ObjectLiteral> {
  /** The model's name in results and errors. @defaultValue the entity's name */
  readonly name?: string;
  /** The entity whose table the model owns. */
  readonly entity: EntityTarget<T>;
  /** Reducers by event type. */
  readonly reducers?: { readonly [type: string]: Reducer<T, never> };
  /** Runs before the reducers of every event (any type), in model order. */
  readonly preprocess?: Preprocessor<T>;
  /** Runs after every event's results were applied. */
  readonly derive?: Deriver<T>;
  /** Runs after every event's sub-events. */
  readonly transact?: Transact<T>;
  /** Replaces the built-in apply step for this model. */
  readonly applyResult?: ApplyResult<T>;
  /**
   * Keys of this model's rows the reducers will read for an event: the writer
   * reads them for a whole batch in one query, before reducing.
   */
  readonly prefetch?: (event: StoreEvent) => RowKey<T> | readonly RowKey<T>[] | undefined;
  /**
   * Whether the writer keeps rows it wrote to this model's table for the
   * next events of a batch. Set false when something besides the store
   * changes the table (a trigger, a cascade, another process); commitbus
   * finds triggers and cascading foreign keys itself.
   * @defaultValue true
   */
  readonly cache?: boolean;
  /**
   * Types this model handles without a reducer (in `derive` or `transact`),
   * so they count as known.
   */
  readonly types?: readonly string[];
}

/**
 * Declares a model, typed by its entity: its reducers return rows of `T`.
 * ```ts
 * const accounts = defineModel({ entity: Account, reducers: {
 *   'ACCOUNT.DEPOSITED': async (e: StoreEvent<{ id: string; amount: number }>, { repository }) => {
 *     const row = await repository.findOneBy({ id: e.data.id });
 *     return { sav: [{ id: e.data.id, balance: (row?.balance ?? 0) + e.data.amount }] };
 *   } } });
 * ```
 */
export function defineModel<T extends ObjectLiteral>(model: EventModel<T>): EventModel<T> {
  return model;
}

/** A history event as listeners get it. */
export type Listener = (event: HistoryEvent) => void | Promise<void>;
