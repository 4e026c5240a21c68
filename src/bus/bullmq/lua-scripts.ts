import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** A script in `./scripts/<file>.lua` and how many of its arguments are keys. */
export interface LuaScriptSpec {
  /** File name without `.lua`. */
  readonly file: string;
  /** How many leading arguments are KEYS. */
  readonly keys: number;
}

/**
 * Loads Lua scripts once and returns a function that defines them as ioredis
 * commands on a connection (once per connection) and gives it their typed
 * signatures, `T`.
 */
export function luaScripts<T>(
  specs: { readonly [command in keyof T & string]: LuaScriptSpec },
): (client: Redis) => Redis & T {
  const sources = Object.entries<LuaScriptSpec>(specs).map(([command, spec]) => ({
    command,
    keys: spec.keys,
    lua: readFileSync(new URL(`./scripts/${spec.file}.lua`, import.meta.url), 'utf8'),
  }));
  const defined = new WeakSet<Redis>();
  return (client) => {
    if (!defined.has(client)) {
      for (const { command, keys, lua } of sources)
        client.defineCommand(command, { numberOfKeys: keys, lua });
      defined.add(client);
    }
    return client as Redis & T;
  };
}
