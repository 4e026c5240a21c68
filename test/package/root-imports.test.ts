/**
 * `import('commitbus')` loads no adapter, no HTTP server and no metrics
 * library: each lives at its subpath (`commitbus/redis`, `commitbus/router`,
 * `commitbus/dashboard`, `commitbus/metrics`) or is loaded when used. A fresh
 * `node --import tsx` child imports the module and reports which packages it
 * loaded (`test/fixtures/loaded-packages.ts`: a resolve hook for ES modules,
 * `require.cache` for CommonJS). The same probe run on the subpaths sees
 * those packages, so a root that loaded one would fail here.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROBE = 'test/fixtures/loaded-packages.ts';

/**
 * What the package root must not load: the adapters' clients, the HTTP
 * servers and client, the metrics library, the cron parser (loaded by the
 * first cron schedule).
 */
const NOT_AT_ROOT = ['bullmq', 'ioredis', 'fastify', 'undici', 'prom-client', 'cron-parser'] as const;

/** The dashboard (Fastify, bull-board) and the router's HTTP API and sender: none loads with the root either. */
const NOT_AT_ROOT_OF_OURS = [
  'src/dashboard/',
  'src/router/http/',
  'src/router/delivery/webhook-sender.ts',
] as const;

async function loadedBy(module: string, names: readonly string[] = NOT_AT_ROOT): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', PROBE, module, ...names],
    { cwd: ROOT, timeout: 60_000 },
  );
  return (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { loaded: string[] }).loaded;
}

describe('importing the package root', () => {
  it(`loads none of ${NOT_AT_ROOT.join(', ')}`, async () => {
    expect(await loadedBy('src/index.ts')).toEqual([]);
  });

  it("loads neither the dashboard nor the router's HTTP API and webhook sender", async () => {
    expect(await loadedBy('src/index.ts', NOT_AT_ROOT_OF_OURS)).toEqual([]);
    expect(await loadedBy('src/bus/router.ts', NOT_AT_ROOT_OF_OURS)).toEqual([
      'src/router/http/',
      'src/router/delivery/webhook-sender.ts',
    ]);
    expect(await loadedBy('src/dashboard/index.ts', NOT_AT_ROOT_OF_OURS)).toContain('src/dashboard/');
  });

  it('while the probe sees each of them where a subpath loads it', async () => {
    expect(await loadedBy('src/metrics/index.ts')).toEqual(['prom-client']);
    expect(await loadedBy('src/dashboard/index.ts')).toEqual(['fastify']);
    expect(await loadedBy('src/bus/router.ts')).toEqual(
      expect.arrayContaining(['fastify', 'undici', 'prom-client']),
    );
    expect(await loadedBy('src/transports/redis/index.ts')).toEqual(
      expect.arrayContaining(['bullmq', 'ioredis']),
    );
  });
});
