/** `commitbus --version`: the version in commitbus's package.json. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/cli/package-version.js';
import { runCli } from '../helpers/cli-runner.js';

const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };

describe('commitbus --version', () => {
  it("prints package.json's version and exits 0", { timeout: 60_000 }, async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('reads the nearest package.json named commitbus, skipping others, and says unknown when none is', () => {
    const root = mkdtempSync(join(tmpdir(), 'cb-version-'));
    const nested = join(root, 'dist', 'src', 'cli');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'commitbus', version: '9.8.7' }));
    writeFileSync(join(root, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    expect(packageVersion(nested)).toBe('9.8.7');
    const lone = mkdtempSync(join(tmpdir(), 'cb-version-none-'));
    expect(packageVersion(lone)).toBe('unknown');
  });
});
