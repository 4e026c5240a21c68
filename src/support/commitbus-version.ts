import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The version of commitbus running (its package.json's `version`), read
 * once; `'unknown'` when the file cannot be found. The file is two folders
 * up from `src/support` in the repository and three from
 * `dist/src/support` in the package.
 */
export function commitbusVersion(): string {
  cached ??= readVersion();
  return cached;
}

function readVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const json = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (json.name === 'commitbus' && typeof json.version === 'string') return json.version;
    } catch {
      // Not there: the other layout.
    }
  }
  return 'unknown';
}
