import { ConfigError } from '../../config/errors/config.error.js';
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
   * Above this many bytes used by the store (Redis `used_memory`: all of that
   * Redis, the bus's own keys included), the oldest batches are dropped and
   * their events lost. Off (`0`) unless set: turn it on only with a Redis
   * given to the router, or a mark well above what the rest uses.
   * @defaultValue 0 (off)
   */
  readonly autodropHighBytes: number;
  /**
   * ... until the store uses at most this many bytes.
   * @defaultValue 80 % of `autodropHighBytes`
   */
  readonly autodropLowBytes: number;
  /**
   * Batches dropped per step, memory being read again between steps.
   * @defaultValue 100
   */
  readonly autodropBatchSize: number;
  /**
   * Most batches one check drops; the next check (`autodropEveryMs` later)
   * reads memory again, so a mark the router's batches cannot reach (memory
   * held by other keys, or freed lazily) does not empty the queue at once.
   * @defaultValue 1_000
   */
  readonly autodropMaxBatchesPerRun: number;
}

/** The defaults of {@link UpkeepSettings}. */
export const DEFAULT_UPKEEP_SETTINGS = {
  promoteEveryMs: 10,
  recoverEveryMs: 1_000,
  autodropEveryMs: 10_000,
  autodropHighBytes: 0,
  autodropLowBytes: 0,
  autodropBatchSize: 100,
  autodropMaxBatchesPerRun: 1_000,
} as const satisfies UpkeepSettings;

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
