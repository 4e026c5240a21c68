import type { Transport } from './transport.js';

/** How long the queues' `isPaused()` may take once the transport answered. */
const PAUSED_READ_TIMEOUT_MS = 5_000;

/**
 * The names of the transport's BullMQ queues that are paused (by bull-board,
 * or BullMQ's `queue.pause()`), for `bus.status().pausedQueues`; `[]` for a
 * transport whose work is not on BullMQ. BullMQ waits for Redis without end,
 * so the transport's `reachable` is asked first (it rejects soon with a
 * `TransportUnavailableError`), and the queues' answers are bounded.
 */
export async function readPausedQueues(
  transport: Pick<Transport, 'bullmqQueues' | 'reachable'>,
  action: string,
): Promise<string[]> {
  const queues = transport.bullmqQueues ?? [];
  if (queues.length === 0) return [];
  await transport.reachable?.(action);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `BullMQ's queues did not say within ${PAUSED_READ_TIMEOUT_MS} ms whether they are paused: is Redis overloaded?`,
          ),
        ),
      PAUSED_READ_TIMEOUT_MS,
    );
  });
  try {
    const paused = await Promise.race([
      Promise.all(queues.map(async (queue) => ((await queue.isPaused()) ? queue.name : undefined))),
      late,
    ]);
    return paused.filter((name): name is string => name !== undefined);
  } finally {
    clearTimeout(timer);
  }
}
