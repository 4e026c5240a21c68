/** What {@link readWithin} resolves to when the read has not settled in time. */
export const NO_ANSWER: unique symbol = Symbol('no answer');

/**
 * Runs `read` and waits for it at most `timeoutMs`: its value (or its error,
 * thrown), or {@link NO_ANSWER} when it has not settled by then. A server
 * that stopped answering (frozen, overloaded, a connection that waits for it
 * without end) then costs the caller (a dashboard page, a router's start) one
 * bounded wait; the read itself goes on, and what it comes to later is
 * ignored.
 */
export async function readWithin<T>(
  read: () => Promise<T>,
  timeoutMs: number,
): Promise<T | typeof NO_ANSWER> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof NO_ANSWER>((resolve) => {
    timer = setTimeout(() => resolve(NO_ANSWER), timeoutMs);
  });
  try {
    // The race handles a late rejection of the read too: it is never unhandled.
    return await Promise.race([read(), late]);
  } finally {
    clearTimeout(timer);
  }
}
