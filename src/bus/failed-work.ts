import { firstAttemptOf } from '../handlers/handler-job.js';

/** Handler work that ran out of attempts (or could never run), kept for inspection. */
export interface FailedWork {
  /** `async`: an async handler; `sync`: a sync handler's retries; `undecodable`: a payload no class could read. */
  readonly kind: 'async' | 'sync' | 'undecodable';
  /** The transport's job id. */
  readonly jobId: string;
  /** The event's id, when decodable. */
  readonly eventId?: string;
  /** The event's handling key, when decodable. */
  readonly handlingKey?: string;
  /** The handler that failed. */
  readonly handler?: string;
  /** The last error's message. */
  readonly error: string;
  /** The last error's stack traces, one per attempt where known. */
  readonly stacktrace: readonly string[];
  /** Runs of the handler before it was given up (0 when the payload could not be decoded). */
  readonly attemptsMade: number;
  /** When it was given up. */
  readonly failedAt: Date;
  /** The serialized event. */
  readonly payload: string;
}

/** Reads id and key from an envelope without trusting it. */
function peekEnvelope(payload: string): { eventId?: string; handlingKey?: string } {
  try {
    const parsed = JSON.parse(payload) as { key?: unknown; event?: { id?: unknown } };
    return {
      ...(typeof parsed.key === 'string' ? { handlingKey: parsed.key } : {}),
      ...(typeof parsed.event?.id === 'string' ? { eventId: parsed.event.id } : {}),
    };
  } catch {
    return {};
  }
}

/** What a failed handler job is described from: the job as commitbus enqueued it. */
export interface FailedJob {
  /** Which queue it ran in. */
  readonly kind: 'async' | 'retry';
  /** The transport's job id. */
  readonly jobId: string;
  /** The serialized event. */
  readonly payload: string;
  /** The handler it ran (absent when the payload could not be decoded). */
  readonly handler?: string | undefined;
  /** Set when it failed in the drain and was kept without running again. */
  readonly exhaustedError?: string | undefined;
  /** The handler's attempt number on the job's first run, when not the default. */
  readonly firstAttempt?: number | undefined;
}

/** How a failed job ended. */
export interface JobFailure {
  /** The last error's message. */
  readonly error: string;
  /** Stack traces, one per attempt where known. */
  readonly stacktrace: readonly string[];
  /** Runs the job itself made. */
  readonly jobRuns: number;
  /** When it was given up. */
  readonly failedAt: Date;
}

/** Describes a failed handler job the same way on every transport. */
export function toFailedWork(job: FailedJob, failure: JobFailure): FailedWork {
  return {
    kind: job.kind === 'async' ? 'async' : job.handler === undefined ? 'undecodable' : 'sync',
    jobId: job.jobId,
    ...peekEnvelope(job.payload),
    ...(job.handler !== undefined ? { handler: job.handler } : {}),
    error: failure.error,
    stacktrace: failure.stacktrace,
    attemptsMade: handlerRuns(job, failure.jobRuns),
    failedAt: failure.failedAt,
    payload: job.payload,
  };
}

// A sync handler's first run happens in the drain, so its retry job made one
// run fewer; a job marked exhausted failed in the drain and never ran it again.
function handlerRuns(job: FailedJob, jobRuns: number): number {
  if (job.kind === 'async') return jobRuns + firstAttemptOf(job.kind, job) - 1;
  if (job.handler === undefined) return 0;
  return job.exhaustedError !== undefined ? 1 : jobRuns + firstAttemptOf(job.kind, job) - 1;
}
