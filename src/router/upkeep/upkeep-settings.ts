/** What the {@link RouterUpkeep} tunes. */
export interface UpkeepSettings {
  /**
   * How often early batches past their deadline are made ready. With `timeout` 0 this
   * bounds the publish-to-delivery latency.
   * @defaultValue 10
   */
  readonly promoteEveryMs: number;
  /**
   * How often batches whose lease ended (their worker died) are put back.
   * @defaultValue 1_000
   */
  readonly recoverEveryMs: number;
  /**
   * How often memory is checked for the autodrop.
   * @defaultValue 10_000
   */
  readonly autodropEveryMs: number;
  /**
   * Above this many bytes used by the store (Redis `used_memory`, all of that Redis), the
   * oldest batches are dropped. `0` turns the autodrop off.
   * @defaultValue 1_073_741_824 (1 GiB)
   */
  readonly autodropHighBytes: number;
  /**
   * ... until the store uses at most this many bytes.
   * @defaultValue 858_993_459 (80 % of the default high mark)
   */
  readonly autodropLowBytes: number;
  /**
   * Batches dropped per step, memory being read again between steps.
   * @defaultValue 100
   */
  readonly autodropBatchSize: number;
}

/** The defaults of {@link UpkeepSettings}. */
export const DEFAULT_UPKEEP_SETTINGS = {
  promoteEveryMs: 10,
  recoverEveryMs: 1_000,
  autodropEveryMs: 10_000,
  autodropHighBytes: 1_073_741_824,
  autodropLowBytes: 858_993_459,
  autodropBatchSize: 100,
} as const satisfies UpkeepSettings;

/** Settings with the defaults filled in; throws a `RangeError` saying what to fix. */
export function upkeepSettings(given: Partial<UpkeepSettings> = {}): UpkeepSettings {
  const settings: UpkeepSettings = { ...DEFAULT_UPKEEP_SETTINGS, ...given };
  for (const [key, value] of Object.entries(settings)) {
    const min = key === 'autodropHighBytes' || key === 'autodropLowBytes' ? 0 : 1;
    if (!Number.isInteger(value) || value < min) {
      throw new RangeError(`upkeep ${key} must be an integer >= ${min}, got ${value}`);
    }
  }
  if (settings.autodropHighBytes > 0 && settings.autodropLowBytes >= settings.autodropHighBytes) {
    throw new RangeError(
      `upkeep autodropLowBytes (${settings.autodropLowBytes}) must be below autodropHighBytes (${settings.autodropHighBytes})`,
    );
  }
  return settings;
}
