import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { describeError, type Logger } from './logger.js';
import { limitRepeats } from './repeat-limit.js';

/** The variable naming the default logger's level: `error`, `warn` (the default), `info`, `debug`, or `silent`. */
export const LOG_LEVEL_VARIABLE = 'COMMITBUS_LOG_LEVEL';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** What the default logger adds to every line. */
export interface DefaultLoggerOptions {
  /** The bus (or store, or router) the lines are of: a `bus` field. */
  readonly bus?: string;
  /** Fields of the moment a line is written (the active span's trace and span ids). */
  readonly mixin?: () => object;
  /**
   * The variables to read the level from.
   * @defaultValue `process.env`
   */
  readonly env?: NodeJS.ProcessEnv;
}

interface PinoLike {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * The logger a bus, an event store or a router uses when given none: pino,
 * JSON lines on stderr (written synchronously, so none is lost at exit) with
 * `time` (ISO), `level` (its name), `pid`, `hostname`, `bus`, the `mixin`'s
 * fields and the line's own; an `error` field that is an Error becomes its
 * name, message, code and stack. Warnings and errors by default
 * (`COMMITBUS_LOG_LEVEL=info` adds workers starting and stopping); a line
 * repeated per event is thinned out ({@link limitRepeats}). pino is loaded
 * at the first line written, not before.
 */
export function defaultLogger(options: DefaultLoggerOptions = {}): Logger {
  const level = levelOf(options.env ?? process.env);
  let pino: PinoLike | undefined;
  const get = (): PinoLike => {
    pino ??= openPino(level, options);
    return pino;
  };
  const line = (fields: object): object => {
    const error = (fields as { error?: unknown }).error;
    return error instanceof Error ? { ...fields, error: describeError(error) } : fields;
  };
  return limitRepeats({
    info: (fields, message) => get().info(line(fields), message),
    warn: (fields, message) => get().warn(line(fields), message),
    error: (fields, message) => get().error(line(fields), message),
  });
}

function levelOf(env: NodeJS.ProcessEnv): string {
  const asked = env[LOG_LEVEL_VARIABLE]?.trim().toLowerCase() ?? '';
  return LEVELS.includes(asked) ? asked : 'warn';
}

function openPino(level: string, options: DefaultLoggerOptions): PinoLike {
  // biome-ignore lint/suspicious/noExplicitAny: pino's CommonJS export, loaded on first use
  const pino = createRequire(import.meta.url)('pino') as any;
  return pino(
    {
      level,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      base: {
        pid: process.pid,
        hostname: hostname(),
        ...(options.bus === undefined ? {} : { bus: options.bus }),
      },
      formatters: { level: (label: string) => ({ level: label }) },
      ...(options.mixin === undefined ? {} : { mixin: options.mixin }),
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
