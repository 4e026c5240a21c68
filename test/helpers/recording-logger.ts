import type { Logger } from '../../src/support/logger.js';

export type LogLevel = 'info' | 'warn' | 'error';

/** A line a {@link RecordingLogger} was given. */
export interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: object;
}

/** A logger that keeps every line it is given, in order, for a test to read. */
export interface RecordingLogger extends Logger {
  /** Every line, in the order logged. */
  readonly lines: LogLine[];
  /** The lines logged at one of `levels`, in order. */
  at(...levels: LogLevel[]): LogLine[];
  /** The messages logged at one of `levels`, in order. */
  messages(...levels: LogLevel[]): string[];
  /** Each line as one JSON string, `{ level, message, ...fields }`: what a test searches for a secret. */
  json(): string[];
  /** Forgets every line (between tests, for a logger a file shares). */
  clear(): void;
}

/** A logger keeping every line in `lines` (a new array unless given one). */
export function recordingLogger(lines: LogLine[] = []): RecordingLogger {
  const keep = (level: LogLevel) => (fields: object, message: string) => {
    lines.push({ level, message, fields });
  };
  const at = (...levels: LogLevel[]) => lines.filter((line) => levels.includes(line.level));
  return {
    lines,
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    at,
    messages: (...levels) => at(...levels).map((line) => line.message),
    json: () => lines.map(({ level, message, fields }) => JSON.stringify({ level, message, ...fields })),
    clear: () => {
      lines.length = 0;
    },
  };
}
