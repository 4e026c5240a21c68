import { readFileSync } from 'node:fs';
import { InternalError } from '../../support/errors/internal.error.js';
import type { RedisClient } from './redis-client.js';

/** A script in `./scripts/<file>.lua` and how many of its arguments are keys. */
export interface LuaScriptSpec {
  /** File name without `.lua`. */
  readonly file: string;
  /**
   * How many leading arguments are KEYS (at least one: a cluster routes the
   * call by its first key), or `'counted'` when that varies per call: the
   * caller then passes the count as the first argument.
   */
  readonly keys: number | 'counted';
  /**
   * Files of `./scripts/includes/` (without `.lua`) whose functions the
   * script calls: their text is put before the script's.
   * @defaultValue none
   */
  readonly includes?: readonly string[];
}

/**
 * Loads Lua scripts once and returns a function that defines them as ioredis
 * commands on a connection (once per connection; on a Redis Cluster, ioredis
 * routes each call by its first key) and gives it their typed signatures, `T`.
 */
export function luaScripts<T>(
  specs: { readonly [command in keyof T & string]: LuaScriptSpec },
): <C extends RedisClient>(client: C) => C & T {
  for (const [command, spec] of Object.entries<LuaScriptSpec>(specs)) {
    // ioredis sends a script without keys to a random node of a cluster.
    if (spec.keys === 0)
      throw new InternalError(`${command} (${spec.file}.lua) must declare its keys as KEYS`);
  }
  const sources = Object.entries<LuaScriptSpec>(specs).map(([command, spec]) => ({
    command,
    keys: spec.keys === 'counted' ? undefined : spec.keys,
    lua: [...(spec.includes ?? []).map((name) => `includes/${name}`), spec.file]
      .map((file) => readFileSync(new URL(`./scripts/${file}.lua`, import.meta.url), 'utf8'))
      .join('\n'),
  }));
  const defined = new WeakSet<RedisClient>();
  return <C extends RedisClient>(client: C) => {
    if (!defined.has(client)) {
      for (const { command, keys, lua } of sources)
        client.defineCommand(command, keys === undefined ? { lua } : { numberOfKeys: keys, lua });
      defined.add(client);
    }
    return client as C & T;
  };
}
