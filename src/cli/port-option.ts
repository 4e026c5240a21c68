import { ConfigError } from '../config/errors/config.error.js';

/** Reads a `--...-port` flag: an integer 0..65535 (0: any free port). */
export function portOption(flag: string, raw: string): number {
  const port = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`${flag} must be a port number 0..65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}
