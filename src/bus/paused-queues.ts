import { TransportUnavailableError } from '../support/errors/transport-unavailable.error.js';
import { NO_ANSWER, readWithin } from '../support/read-within.js';
import type { Transport } from './transport.js';

/** How long the queues' `isPaused()` may take once the transport answered. */
const PAUSED_READ_TIMEOUT_MS = 5_000;

/**
 * The names of the transport's BullMQ queues that are paused (by bull-board,
 * or BullMQ's `queue.pause()`), for `bus.status().pausedQueues`; `[]` for a
 * transport whose work is not on BullMQ. BullMQ waits for Redis without end,
 * so the transport's `reachable` is asked first (it rejects soon with a
 * `TransportUnavailableError`), and the queues' answers are bounded (no
 * answer in time is a `TransportUnavailableError` too).
 */
export async function readPausedQueues(
  transport: Pick<Transport, 'bullmqQueues' | 'reachable' | 'location'>,
  action: string,
): Promise<string[]> {
  const queues = transport.bullmqQueues ?? [];
  if (queues.length === 0) return [];
  await transport.reachable?.(action);
  const paused = await readWithin(
    () => Promise.all(queues.map(async (queue) => ((await queue.isPaused()) ? queue.name : undefined))),
    PAUSED_READ_TIMEOUT_MS,
  );
  if (paused === NO_ANSWER) {
    const reason = `BullMQ's queues did not say within ${PAUSED_READ_TIMEOUT_MS} ms whether they are paused`;
    throw new TransportUnavailableError(action, transport.location?.() ?? 'Redis', {
      cause: reason,
      fix: 'Is Redis overloaded?',
    });
  }
  return paused.filter((name): name is string => name !== undefined);
}
