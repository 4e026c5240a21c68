/** How long to wait between attempts of a handler. */
export interface BackoffOptions {
  /** `fixed` waits `delayMs` each time; `exponential` waits `delayMs * 2^(attempt-1)`. */
  type: 'fixed' | 'exponential';
  /** Base delay in milliseconds. */
  delayMs: number;
}

/** The wait before retry number `attempt` (1 = the first retry). */
export function backoffDelay(backoff: BackoffOptions, attempt: number): number {
  return backoff.type === 'fixed' ? backoff.delayMs : backoff.delayMs * 2 ** (attempt - 1);
}
