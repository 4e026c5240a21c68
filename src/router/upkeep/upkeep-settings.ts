import { DEFAULTS } from '../../config/config.js';
import { ConfigError } from '../../config/errors/config.error.js';
import type { UpkeepSettings } from '../../config/router-option-groups.js';

export type { UpkeepSettings } from '../../config/router-option-groups.js';

/** The defaults of {@link UpkeepSettings}: `DEFAULTS.router.upkeep` (the low mark is worked out from the high one). */
export const DEFAULT_UPKEEP_SETTINGS = DEFAULTS.router.upkeep;

/** Settings with the defaults filled in; throws a `ConfigError` saying what to fix. */
export function upkeepSettings(given: Partial<UpkeepSettings> = {}): UpkeepSettings {
  const high = given.autodropHighBytes ?? DEFAULT_UPKEEP_SETTINGS.autodropHighBytes;
  const settings: UpkeepSettings = {
    ...DEFAULT_UPKEEP_SETTINGS,
    autodropLowBytes: Math.floor(high * 0.8),
    ...(Object.fromEntries(
      Object.entries(given).filter(([, v]) => v !== undefined),
    ) as Partial<UpkeepSettings>),
  };
  for (const [key, value] of Object.entries(settings)) {
    const min = key === 'autodropHighBytes' || key === 'autodropLowBytes' ? 0 : 1;
    if (!Number.isInteger(value) || value < min) {
      throw new ConfigError(`upkeep ${key} must be an integer >= ${min}, got ${value}`);
    }
  }
  if (settings.autodropHighBytes > 0 && settings.autodropLowBytes >= settings.autodropHighBytes) {
    throw new ConfigError(
      `upkeep autodropLowBytes (${settings.autodropLowBytes}) must be below autodropHighBytes (${settings.autodropHighBytes})`,
    );
  }
  return settings;
}
