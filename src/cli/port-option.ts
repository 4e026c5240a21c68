import { ConfigError } from '../config/errors/config.error.js';
import { PortInUseError } from './errors/port-in-use.error.js';

/** Reads a `--...-port` flag: an integer 0..65535 (0: any free port). */
export function portOption(flag: string, raw: string): number {
  const port = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`${flag} must be a port number 0..65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

/** Whether `error`, or an error it was caused by, is Node's `EADDRINUSE`. */
export function isAddressInUse(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 10; at = at.cause, depth++) {
    if ((at as NodeJS.ErrnoException).code === 'EADDRINUSE') return true;
  }
  return false;
}

/** `error` as a {@link PortInUseError} naming `flag` when the port was taken, else as it is. */
export function portInUseOr(error: unknown, flag: string, host: string, port: number): unknown {
  return isAddressInUse(error) ? new PortInUseError(flag, host, port, { cause: error }) : error;
}
