import type { Logger } from '../support/logger.js';
import type { DeprecatedOptionUse } from './normalize-options.js';

/** Names each logger has been warned about: once per name and logger. */
const warned = new WeakMap<Logger, Set<string>>();

/**
 * Logs each deprecated flat option name, and each environment variable that
 * still does the two jobs of an option since split, once per logger, naming
 * its new place. Returns what goes to `resolveOptions`'s `onDeprecated`.
 */
export function warnDeprecatedOptions(logger: Logger): (uses: readonly DeprecatedOptionUse[]) => void {
  return (uses) => {
    let seen = warned.get(logger);
    if (seen === undefined) {
      seen = new Set();
      warned.set(logger, seen);
    }
    for (const { name, replacement, kind } of uses) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (kind === 'variable') {
        logger.warn(
          { variable: name, replacement },
          `commitbus environment variable "${name}" is deprecated: use ${replacement}; it still sets both`,
        );
      } else {
        logger.warn(
          { option: name, replacement },
          `commitbus option "${name}" is deprecated: use ${replacement}; the flat name is removed in the next minor version`,
        );
      }
    }
  };
}
