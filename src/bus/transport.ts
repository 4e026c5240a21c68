import type { CommitbusConfig, TransportKind } from '../config/config.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Dispatcher } from '../handlers/dispatcher.js';
import type { DrainResult } from '../handlers/drain.js';
import type { HandlerJob } from '../handlers/handler-job.js';
import type { OrderingStore } from '../ordering/ordering-store.js';
import type { SchedulingRuleStore } from '../scheduling/scheduling-rule-store.js';
import type { Logger } from './logger.js';
import type { AppendResult, OutgoingEvent } from './outgoing-event.js';

/** What a transport's worker needs from the bus. */
export interface WorkerRuntime {
  /** Runs handlers. */
  readonly dispatcher: Dispatcher;
  /** The bus configuration. */
  readonly config: CommitbusConfig;
  /** Where to log. */
  readonly logger: Logger;
  /** Called after each drain job with what it did. */
  readonly onDrain?: (result: DrainResult) => void;
}

/** A running worker of a transport. */
export interface TransportWorker {
  /** Stops taking work, waits for in-flight work up to `timeoutMs`, then closes. */
  close(timeoutMs: number): Promise<void>;
}

/** A worker's handle on the ordered lanes. */
export interface WorkerOrdering {
  /** The store. */
  readonly store: OrderingStore;
  /** Releases what the handle holds. */
  close(): void;
}

/**
 * The port between the bus and where events travel. `bullmq` keeps them in
 * Redis, `memory` in this process.
 */
export interface Transport {
  /** Which transport this is. */
  readonly kind: TransportKind;
  /** Where scheduling rules (pause, block) and parked work live, shared by every process of the bus. */
  readonly rules: SchedulingRuleStore;
  /**
   * Appends serialized events in one round trip and makes sure a drain will
   * take them. Drops ids accepted within `dedupeWindowMs`; holds delayed
   * events back until {@link Transport.releaseDue} finds them due.
   */
  publish(events: readonly OutgoingEvent[]): Promise<AppendResult>;
  /** Moves up to `limit` due delayed events to the drains; resolves to how many. */
  releaseDue(limit: number): Promise<number>;
  /** Starts consuming events in this process. */
  startWorker(runtime: WorkerRuntime): Promise<TransportWorker>;
  /** Where work given up after its last attempt is kept. */
  readonly deadLetters: DeadLetterStore;
  /** The lanes of ordered events (published ones go there through {@link Transport.publish}). */
  readonly ordering: OrderingStore;
  /** The lanes as a worker of this process uses them, with a connection of its own for blocking waits. */
  workerOrdering(): WorkerOrdering;
  /** Adds handler jobs, e.g. re-driven dead letters; a worker (of any process) runs them. */
  enqueue(jobs: readonly HandlerJob[]): Promise<void>;
  /** Events published but not yet drained, ordered ones included. */
  backlog(): Promise<number>;
  /** Events waiting for their delivery time. */
  delayed(): Promise<number>;
  /**
   * True when no event waits (delayed ones included, ordered ones not in a
   * halted lane) and no handler job is waiting, delayed or running.
   */
  isIdle(): Promise<boolean>;
  /** Resolves once {@link Transport.isIdle} holds; transports that can be told so implement it. */
  whenIdle?(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
