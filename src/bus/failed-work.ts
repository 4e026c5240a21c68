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
export function peekEnvelope(payload: string): { eventId?: string; handlingKey?: string } {
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

/**
 * Runs of the handler behind a failed job. A sync handler's first run happens
 * in the drain, so its retry job made one run fewer; a job marked exhausted
 * failed in the drain and never ran the handler itself.
 */
export function handlerRuns(
  kind: 'async' | 'retry',
  job: { handler?: string | undefined; exhaustedError?: string | undefined },
  jobRuns: number,
): number {
  if (kind === 'async') return jobRuns;
  if (job.handler === undefined) return 0;
  return job.exhaustedError !== undefined ? 1 : jobRuns + 1;
}
