import type { ResolvedCommitbusOptions } from '../config/commitbus-options.js';
import type { Logger } from '../support/logger.js';
import type { SoloGate } from '../support/solo-gate.js';
import type { Dispatcher } from './dispatcher.js';
import type { DrainResult } from './drain.js';

/** What a transport's worker needs from the bus to run handlers. */
export interface WorkerRuntime {
  /** Runs handlers. */
  readonly dispatcher: Dispatcher;
  /** The bus configuration. */
  readonly config: ResolvedCommitbusOptions;
  /** Where to log. */
  readonly logger: Logger;
  /**
   * The process's gate: drains and handler jobs run their events through it,
   * and an event handed out again after its worker died runs alone (see
   * {@link SoloGate}).
   */
  readonly solo: SoloGate;
  /** Called after each drain job with what it did. */
  readonly onDrain?: (result: DrainResult) => void;
}

/** A running worker of a transport: drains and handler jobs in this process. */
export interface TransportWorker {
  /** Stops taking work, waits for in-flight work up to `timeoutMs`, then closes. */
  close(timeoutMs: number): Promise<void>;
}
