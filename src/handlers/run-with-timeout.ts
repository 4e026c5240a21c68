/**
 * Runs `run` and settles as it does, or rejects with `onTimeout()` once
 * `timeoutMs` have passed (`0`: no limit). On timeout the signal given to
 * `run` is aborted with that error; the run itself cannot be stopped, so it
 * may go on in the background, and whatever it settles with then is ignored.
 */
export function runWithTimeout(
  run: (signal: AbortSignal) => void | Promise<void>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<void> {
  const controller = new AbortController();
  // async: a handler that throws synchronously rejects like any other.
  const running = (async () => run(controller.signal))();
  if (timeoutMs <= 0) return running;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = onTimeout();
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    running.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
