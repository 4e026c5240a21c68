import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { WorkersOptions } from '../config/option-groups.js';
import type { WorkerRegistry } from '../handlers/worker-registry.js';
import { describeError, type Logger } from '../support/logger.js';
import { packageVersion } from '../support/package-version.js';
import { PeriodicTask } from '../support/periodic-task.js';

/** What a worker's beats are made of. */
export interface WorkerBeatParts {
  /** Where the beats go (`transport.workers`). */
  readonly registry: WorkerRegistry;
  /** How often to beat. */
  readonly settings: Pick<WorkersOptions, 'beatEveryMs'>;
  /** The transport's name, as the beat shows it. */
  readonly transport: string;
  /** `handlers.concurrency`. */
  readonly concurrency: number;
  /** How many handler runs are under way now. */
  readonly busy: () => number;
  /** Where a failed leave is logged (failed beats are logged by their task). */
  readonly logger: Logger;
}

/** A worker's running beats. */
export interface WorkerBeats {
  /** The worker's id in the registry. */
  readonly id: string;
  /** Stops beating and removes the worker's record (a failure to remove it is logged, not thrown). */
  stop(): Promise<void>;
}

/**
 * Registers this worker in its bus's registry now and beats every
 * `workers.beatEveryMs`: id, host, pid, commitbus version, transport,
 * concurrency, busy count, start time. A beat that fails (the transport is
 * away) is logged and the next goes on schedule.
 */
export function startWorkerBeats(parts: WorkerBeatParts): WorkerBeats {
  const id = randomUUID();
  const startedAt = new Date();
  const host = hostname();
  const version = packageVersion();
  const task = new PeriodicTask(
    'worker heartbeat',
    parts.settings.beatEveryMs,
    () =>
      parts.registry.beat({
        id,
        host,
        pid: process.pid,
        version,
        transport: parts.transport,
        concurrency: parts.concurrency,
        busy: parts.busy(),
        startedAt,
      }),
    parts.logger,
  ).start();
  return {
    id,
    stop: async () => {
      await task.stop();
      await parts.registry.leave(id).catch((error: unknown) => {
        parts.logger.warn(
          { worker: id, error: describeError(error).message },
          'the worker could not remove its registration; it shows as gone once its beats are old',
        );
      });
    },
  };
}
