import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { ChaosScripts } from './chaos-cluster.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The chaos processes, bundled: where each role's script is, and how to remove them. */
export interface ChaosBundle extends ChaosScripts {
  remove(): Promise<void>;
}

/** The fixture (a file in `test/fixtures`) each role runs; by default the crash test's. */
const CRASH_TEST_FIXTURES: ChaosScripts = { publisher: 'chaos-publisher.ts', worker: 'chaos-worker.ts' };

/**
 * Bundles the publisher and worker fixtures (the crash test's unless told
 * otherwise) with the commitbus sources into two plain ESM scripts (packages
 * stay imports), with esbuild, which is what tsx runs on each file anyway. A
 * chaos test starts a process per kill; a bundled one is ready in about half
 * the time and CPU of `node --import tsx`, which on two cores decides how
 * many kills fit in a run. The bundles go under `node_modules/.cache`, so
 * their imports of packages resolve.
 */
export async function bundleChaosProcesses(
  fixtures: ChaosScripts = CRASH_TEST_FIXTURES,
): Promise<ChaosBundle> {
  const outdir = `${ROOT}node_modules/.cache/commitbus-chaos-${randomUUID().slice(0, 8)}`;
  await build({
    entryPoints: {
      publisher: `${ROOT}test/fixtures/${fixtures.publisher}`,
      worker: `${ROOT}test/fixtures/${fixtures.worker}`,
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    keepNames: true,
    tsconfig: `${ROOT}tsconfig.json`,
    logLevel: 'error',
    plugins: [
      {
        // Each module keeps its own import.meta.url, so files read next to a
        // source (the Lua scripts) are found where they are.
        name: 'keep-import-meta-url',
        setup(plugin) {
          plugin.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
            contents: (await readFile(path, 'utf8')).replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(path).href),
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  return {
    publisher: `${outdir}/publisher.mjs`,
    worker: `${outdir}/worker.mjs`,
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}
