/**
 * The router's options from the environment: booleans as our ROUTER_*
 * variables take them (several spellings, garbage refused) and as
 * Routemaster reads its own names (ROUTEMASTER_SSL_VERIFY).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/errors/config.error.js';
import { loadRouterOptionsFromEnv } from '../src/router/load-router-options-from-env.js';

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
