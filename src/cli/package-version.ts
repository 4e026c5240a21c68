import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version in commitbus's own `package.json`: the nearest one above this
 * file whose name is `commitbus` (`src/cli` from the sources, `dist/src/cli`
 * once built), or `unknown` when none is found.
 */
export function packageVersion(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const found = readPackage(join(dir, 'package.json'));
    if (found?.name === 'commitbus' && typeof found.version === 'string') return found.version;
    if (dirname(dir) === dir) return 'unknown';
  }
}

function readPackage(path: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
