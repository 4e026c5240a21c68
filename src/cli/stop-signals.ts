/** The signals that stop a long-running command (`worker`, `router`, `dashboard`). */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** What {@link listenForStopSignals} returns. */
export interface StopSignals {
  /** Resolves with the first stop signal, one that came while the command was starting included. */
  readonly received: Promise<NodeJS.Signals>;
  /** Stops listening: the command failed to start, or has stopped. */
  dispose(): void;
}

/**
 * Listens for SIGTERM and SIGINT from now on. A command calls it before its
 * slow start (importing the bus module under tsx, connecting, starting a
 * worker), so a signal that comes meanwhile is kept rather than lost (or, with
 * no listener yet, ending the process before it can close what it opened):
 * `received` resolves with it, and the command stops as soon as it has
 * started. A second signal calls `onSecond` (the commands exit at once).
 */
export function listenForStopSignals(onSecond: (signal: NodeJS.Signals) => void): StopSignals {
  let first: NodeJS.Signals | undefined;
  let settle: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    settle = resolve;
  });
  const listener = (signal: NodeJS.Signals): void => {
    if (first !== undefined) {
      onSecond(signal);
      return;
    }
    first = signal;
    settle(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return {
    received,
    dispose: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, listener);
    },
  };
}
