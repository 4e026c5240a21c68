import { setTimeout as sleep } from 'node:timers/promises';
import { IdleTimeoutError } from './errors/idle-timeout.error.js';
import type { Transport } from './transport.js';

const IDLE_POLL_MS = 10;

/** The ports idleness is read from. */
type Observed = Pick<Transport, 'log' | 'ordering' | 'jobs'>;

/** Events published and not yet drained, ordered ones included. */
export async function backlogOf(transport: Pick<Transport, 'log' | 'ordering'>): Promise<number> {
  const [log, ordered] = await Promise.all([transport.log.backlog(), transport.ordering.pending()]);
  return log + ordered;
}

/**
 * True when no event waits (delayed ones included, ordered ones not in a
 * halted lane) and no handler job is waiting, delayed or running.
 */
export async function isIdle(transport: Observed): Promise<boolean> {
  // The log first: a drain enqueues an event's jobs before it acknowledges the
  // event, so an empty log means every job is already counted below.
  if ((await transport.log.backlog()) > 0 || (await transport.log.delayed()) > 0) return false;
  // Lanes fan out to async lanes in the same step that finishes an event, so this count is whole.
  const ordered = await transport.ordering.pending();
  if (ordered > 0 && ordered > (await transport.ordering.pendingInHalted())) return false;
  return !(await transport.jobs.hasUnfinished());
}

/** Resolves once {@link isIdle} holds; rejects after `timeoutMs` with what to check. */
export async function waitUntilIdle(transport: Observed, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IdleTimeoutError(timeoutMs)), timeoutMs);
  });
  let waiting = true;
  const poll = async () => {
    while (waiting && !(await isIdle(transport))) await sleep(IDLE_POLL_MS);
  };
  try {
    await Promise.race([poll(), timeout]);
  } finally {
    waiting = false;
    clearTimeout(timer);
  }
}
