/**
 * The `workers` group: its defaults (a beat every 5 s, gone after 15 s),
 * its environment variables, and the checks on its values.
 */
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/resolve-options.js';
import { ConfigError, DEFAULT_CONFIG, loadConfigFromEnv } from '../../src/index.js';

describe('the workers options', () => {
  it('default to a beat every 5 s, gone after 3 missed beats', () => {
    expect(DEFAULT_CONFIG.workers).toEqual({ beatEveryMs: 5_000, goneAfterMs: 15_000 });
    expect(resolveOptions({ workers: { beatEveryMs: 1_000 } }).workers).toEqual({
      beatEveryMs: 1_000,
      goneAfterMs: 15_000,
    });
  });

  it('are read from COMMITBUS_WORKERS_BEAT_EVERY_MS and COMMITBUS_WORKERS_GONE_AFTER_MS', () => {
    const config = loadConfigFromEnv({
      COMMITBUS_WORKERS_BEAT_EVERY_MS: '250',
      COMMITBUS_WORKERS_GONE_AFTER_MS: '1000',
    });
    expect(config.workers).toEqual({ beatEveryMs: 250, goneAfterMs: 1_000 });
  });

  it('refuse a gone-after time not longer than a beat, and values that are not positive integers', () => {
    expect(() => resolveOptions({ workers: { beatEveryMs: 5_000, goneAfterMs: 5_000 } })).toThrow(
      new ConfigError(
        'workers.goneAfterMs (5000) must exceed workers.beatEveryMs (5000): a running worker would show as gone between its beats',
      ),
    );
    expect(() => resolveOptions({ workers: { beatEveryMs: 0 } })).toThrow(
      'workers.beatEveryMs must be a positive integer, got 0 (env COMMITBUS_WORKERS_BEAT_EVERY_MS)',
    );
    expect(() => resolveOptions({ workers: { goneAfterMs: 1.5 } })).toThrow(
      'workers.goneAfterMs must be a positive integer, got 1.5 (env COMMITBUS_WORKERS_GONE_AFTER_MS)',
    );
  });
});
