import { SingleBar } from 'cli-progress';

/** A progress report on stderr; silent when stderr is not a terminal (scripts, CI, pipes). */
export interface Progress {
  /** Reports `done` of `total` (or of an unknown total). */
  update(done: number, total?: number): void;
  /** Ends the report. */
  stop(): void;
}

/** A progress bar labelled `label` on stderr, or a no-op when stderr is not a TTY. */
export function startProgress(label: string, total?: number): Progress {
  if (process.stderr.isTTY !== true) return { update: () => {}, stop: () => {} };
  const known = total !== undefined;
  const bar = new SingleBar({
    stream: process.stderr,
    format: known ? `${label} [{bar}] {value}/{total}` : `${label}: {value}`,
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(total ?? 0, 0);
  return {
    update: (done, newTotal) => {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}
