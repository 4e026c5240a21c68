import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

/**
 * commitbus's version, from its own `package.json` (found by walking up from
 * this file, in the sources and in `dist` alike); `0.0.0` if none is found.
 * Read once.
 */
export function packageVersion(): string {
  version ??= findVersion();
  return version;
}

function findVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'commitbus' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here: look one folder up.
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
