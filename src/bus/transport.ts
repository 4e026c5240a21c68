import type { CommitbusConfig, TransportKind } from '../config/config.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Dispatcher } from '../handlers/dispatcher.js';
import type { DrainResult } from '../handlers/drain.js';
import type { HandlerJob } from '../handlers/handler-job.js';
import type { Logger } from './logger.js';

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

/**
 * The port between the bus and where events travel. `bullmq` keeps them in
 * Redis, `memory` in this process.
 */
export interface Transport {
  /** Which transport this is. */
  readonly kind: TransportKind;
  /** Appends serialized events in one round trip and makes sure a drain will take them. */
  publish(payloads: readonly string[]): Promise<void>;
  /** Starts consuming events in this process. */
  startWorker(runtime: WorkerRuntime): Promise<TransportWorker>;
  /** Where work given up after its last attempt is kept. */
  readonly deadLetters: DeadLetterStore;
  /** Adds handler jobs, e.g. re-driven dead letters; a worker (of any process) runs them. */
  enqueue(jobs: readonly HandlerJob[]): Promise<void>;
  /** Events published but not yet drained. */
  backlog(): Promise<number>;
  /** True when no event waits and no handler job is waiting, delayed or running. */
  isIdle(): Promise<boolean>;
  /** Resolves once {@link Transport.isIdle} holds; transports that can be told so implement it. */
  whenIdle?(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
