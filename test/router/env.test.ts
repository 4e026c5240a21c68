/**
 * The router's options from the environment: booleans as our ROUTER_*
 * variables take them (several spellings, garbage refused) and as
 * Routemaster reads its own names (ROUTEMASTER_SSL_VERIFY).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors/config.error.js';
import { loadRouterOptionsFromEnv } from '../../src/router/load-router-options-from-env.js';

const verifyTls = (env: Record<string, string>) => loadRouterOptionsFromEnv(env).sender?.verifyTls;

describe('loadRouterOptionsFromEnv booleans', () => {
  it('reads ROUTEMASTER_SSL_VERIFY as Routemaster does: true/on/yes/1 in any case, anything else false', () => {
    for (const raw of ['true', 'TRUE', 'on', 'On', 'yes', 'YES', '1']) {
      expect(verifyTls({ ROUTEMASTER_SSL_VERIFY: raw }), raw).toBe(true);
    }
    for (const raw of ['false', 'no', 'off', 'OFF', '0', 'nope', '2']) {
      expect(verifyTls({ ROUTEMASTER_SSL_VERIFY: raw }), raw).toBe(false);
    }
    expect(verifyTls({})).toBeUndefined();
  });

  it('reads our own booleans in several spellings, prefers them to the alias, and refuses anything else', () => {
    for (const raw of ['true', 'Yes', 'ON', '1'])
      expect(verifyTls({ ROUTER_SSL_VERIFY: raw }), raw).toBe(true);
    for (const raw of ['false', 'No', 'off', '0'])
      expect(verifyTls({ ROUTER_SSL_VERIFY: raw }), raw).toBe(false);
    expect(verifyTls({ ROUTER_SSL_VERIFY: 'off', ROUTEMASTER_SSL_VERIFY: 'yes' })).toBe(false);
    expect(loadRouterOptionsFromEnv({ ROUTER_ALLOW_HTTP_URLS: 'YES' }).api?.allowHttpUrls).toBe(true);
    for (const env of [{ ROUTER_SSL_VERIFY: 'nope' }, { ROUTER_ALLOW_HTTP_URLS: 'y' }]) {
      expect(() => loadRouterOptionsFromEnv(env)).toThrow(ConfigError);
    }
    expect(() => loadRouterOptionsFromEnv({ ROUTER_SSL_VERIFY: 'nope' })).toThrow(
      'ROUTER_SSL_VERIFY must be true/false, yes/no, on/off or 1/0, got "nope"',
    );
  });
});

describe('loadRouterOptionsFromEnv scaling probe', () => {
  it("reads GET /pulse/scaling's threshold and deadline, under Routemaster's names too", () => {
    const api = (env: Record<string, string>) => loadRouterOptionsFromEnv(env).api;
    expect(api({ ROUTEMASTER_SCALING_THRESHOLD: '10', ROUTEMASTER_SCALING_DEADLINE: '2500' })).toMatchObject({
      scalingThreshold: 10,
      scalingDeadlineMs: 2_500,
    });
    expect(
      api({
        ROUTER_SCALING_THRESHOLD: '7',
        ROUTEMASTER_SCALING_THRESHOLD: '10',
        ROUTER_SCALING_DEADLINE_MS: '0',
      }),
    ).toMatchObject({ scalingThreshold: 7, scalingDeadlineMs: 0 });
    expect(api({})).not.toHaveProperty('scalingThreshold');
    expect(() => loadRouterOptionsFromEnv({ ROUTEMASTER_SCALING_DEADLINE: 'soon' })).toThrow(ConfigError);
  });
});
