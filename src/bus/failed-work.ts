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
  /** Runs made by the job that failed. */
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
