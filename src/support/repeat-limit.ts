import type { Logger } from './logger.js';

/** How a {@link limitRepeats} logger thins out a line that repeats. */
export interface RepeatLimit {
  /**
   * Lines of one level and message written in full per window; the rest are
   * counted and said in one line when the window ends.
   * @defaultValue `5`
   */
  readonly burst?: number;
  /**
   * The window, in milliseconds.
   * @defaultValue `60_000`
   */
  readonly windowMs?: number;
}

interface Run {
  written: number;
  suppressed: number;
  readonly timer: NodeJS.Timeout;
}

/**
 * `inner`, with warnings and errors that repeat thinned out: of the lines
 * with one level and message (a failure logged per event of a burst, the
 * fields differing), the first `burst` of a window are written, the rest
 * counted, and when the window ends one line says how many were left out
 * (`{ suppressed, windowMs }`, same level, same message). Info lines pass as
 * they are. Its timers keep no process alive.
 */
export function limitRepeats(inner: Logger, { burst = 5, windowMs = 60_000 }: RepeatLimit = {}): Logger {
  const runs = new Map<string, Run>();
  const write = (level: 'warn' | 'error', fields: object, message: string) => {
    const key = `${level}\u0000${message}`;
    let run = runs.get(key);
    if (run === undefined) {
      const timer = setTimeout(() => {
        runs.delete(key);
        if (run !== undefined && run.suppressed > 0) {
          inner[level]({ suppressed: run.suppressed, windowMs }, message);
        }
      }, windowMs);
      timer.unref();
      run = { written: 0, suppressed: 0, timer };
      runs.set(key, run);
    }
    if (run.written < burst) {
      run.written++;
      inner[level](fields, message);
    } else {
      run.suppressed++;
    }
  };
  return {
    info: (fields, message) => inner.info(fields, message),
    warn: (fields, message) => write('warn', fields, message),
    error: (fields, message) => write('error', fields, message),
  };
}
