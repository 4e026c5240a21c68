import { ConfigError } from './errors/config.error.js';

/** The words a boolean environment variable takes, in any case. */
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  yes: true,
  on: true,
  '1': true,
  false: false,
  no: false,
  off: false,
  '0': false,
};

/** ` (option drains.maxEvents)`, or nothing. */
function optionNote(option: string | undefined): string {
  return option === undefined ? '' : ` (option ${option})`;
}

/**
 * Reads a whole number >= 0 from the variable `variable`; throws a
 * {@link ConfigError} naming the variable, the option it sets and the value.
 */
export function parseEnvInteger(variable: string, raw: string, option?: string): number {
  const value = Number(raw);
  // Digits only: no sign, hex, exponent or fraction (`0x10`, `1e3` and `1.0` are refused).
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new ConfigError(
      `${variable} must be a whole number >= 0, got ${JSON.stringify(raw)}${optionNote(option)}`,
    );
  }
  return value;
}

/** Reads a finite number (`0.25`) from the variable `variable`; throws like {@link parseEnvInteger}. */
export function parseEnvNumber(variable: string, raw: string, option?: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    throw new ConfigError(`${variable} must be a number, got ${JSON.stringify(raw)}${optionNote(option)}`);
  }
  return value;
}

/**
 * Reads true/false, yes/no, on/off or 1/0, in any case; anything else throws
 * (a typo must not turn a safety net off unnoticed).
 */
export function parseEnvBoolean(variable: string, raw: string, option?: string): boolean {
  const value = BOOLEAN_WORDS[raw.toLowerCase()];
  if (value === undefined) {
    throw new ConfigError(
      `${variable} must be true/false, yes/no, on/off or 1/0, got ${JSON.stringify(raw)}${optionNote(option)}`,
    );
  }
  return value;
}
