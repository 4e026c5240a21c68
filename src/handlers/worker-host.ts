import type { TransportWorker, WorkerRuntime } from './handler-worker.js';

/**
 * How a worker is started on a transport: its drains read the transport's
 * `EventLog`, its handler jobs come from the transport's `HandlerJobQueue`,
 * and the runtime runs the handlers.
 */
export interface WorkerHost {
  /** Starts consuming in this process. */
  startWorker(runtime: WorkerRuntime): Promise<TransportWorker>;
}
