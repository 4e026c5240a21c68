import type { ReducerResult } from './reducer-result.js';

/** An event as dispatched to the store: a type and plain JSON data. */
export interface StoreEventInput<D = unknown> {
  /** What happened, e.g. `ACCOUNT.DEPOSITED`; 1 to 255 characters. */
  readonly type: string;
  /** Plain JSON data (objects, arrays, strings, finite numbers, booleans, null). */
  readonly data: D;
}

/** An event on the queue: its version `v`, type, data and when it was dispatched. */
export interface StoreEvent<D = unknown> extends StoreEventInput<D> {
  /** The event's version: 1, 2, 3, ... with no gaps, in dispatch-commit order. */
  readonly v: number;
  /** Epoch ms when it was dispatched. */
  readonly ts: number;
}

/**
 * Where an event stands: `queued` (not yet handled), `handled`, `skipped` by an
 * operator, `ignored` (no model knows its type and `unknownTypes` is `'record'`),
 * or `rejected` by a reducer (`esFail`; it changed nothing).
 */
export type StoreEventStatus = 'queued' | 'handled' | 'skipped' | 'ignored' | 'rejected';

/** What each model's reducer returned, by model name. */
export type ModelResults = Readonly<Record<string, ReducerResult<Record<string, unknown>>>>;

/** A sub-event as kept in its parent's history row: depth-first, in processing order. */
export interface SubEventRecord {
  /** The sub-event's type. */
  readonly type: string;
  /** Its data, after preprocessing. */
  readonly data: unknown;
  /** What each model's reducer returned for it. */
  readonly result: ModelResults;
  /** Its own sub-events. */
  readonly events: readonly SubEventRecord[];
}

/** Which step of the cycle failed, and how. */
export interface StepFailure {
  /** The step: `preprocess`, `reduce`, `apply`, `derive`, `transact`, `type` (unknown type) or `store`. */
  readonly step: 'preprocess' | 'reduce' | 'apply' | 'derive' | 'transact' | 'type' | 'store';
  /** The model whose function failed, when one did. */
  readonly model?: string;
  /** Types from the dispatched event down to the failing sub-event. */
  readonly path: readonly string[];
  /** The error's name. */
  readonly name: string;
  /** The error's message. */
  readonly message: string;
  /** The error's stack, when it had one. */
  readonly stack?: string;
  /** Epoch ms of the attempt. */
  readonly at: number;
}

/** One operator action on an event, kept on its history row. */
export interface AuditEntry {
  /** `retry`, `skip` or `correct`. */
  readonly action: 'retry' | 'skip' | 'correct';
  /** Epoch ms. */
  readonly at: number;
  /** Who did it, as the caller said. */
  readonly by?: string;
  /** Why, as the caller said. */
  readonly reason?: string;
  /** The error the event had when the action was taken. */
  readonly error?: StepFailure;
  /** For `correct`: the data before the correction. */
  readonly previousData?: unknown;
}

/** A history row: the event, what it did, and what happened to it. */
export interface HistoryEvent<D = unknown> extends StoreEvent<D> {
  /** Where the event stands. */
  readonly status: StoreEventStatus;
  /** What each model's reducer returned; absent until handled. */
  readonly result?: ModelResults;
  /** Its sub-events, depth-first, each with its own result. */
  readonly events: readonly SubEventRecord[];
  /** The last failure while it is halted, the one it was skipped with, or its rejection (`message` is the reason). */
  readonly error?: StepFailure;
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Kept when history is pruned. */
  readonly important: boolean;
  /** Operator actions taken on it. */
  readonly audit: readonly AuditEntry[];
}
