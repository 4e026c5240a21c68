import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The crash-test processes, bundled: where each one's script is, and how to remove them. */
export interface ChaosBundle {
  readonly publisher: string;
  readonly worker: string;
  remove(): Promise<void>;
}

/**
 * Bundles `chaos-publisher.ts` and `chaos-worker.ts` with the commitbus
 * sources into two plain ESM scripts (packages stay imports), with esbuild,
 * which is what tsx runs on each file anyway. The crash test starts a process
 * per kill; a bundled one is ready in about half the time and CPU of
 * `node --import tsx`, which on two cores decides how many kills fit in a run.
 * The bundles go under `node_modules/.cache`, so their imports of packages resolve.
 */
export async function bundleChaosProcesses(): Promise<ChaosBundle> {
  const outdir = `${ROOT}node_modules/.cache/commitbus-chaos-${randomUUID().slice(0, 8)}`;
  await build({
    entryPoints: {
      'chaos-publisher': `${ROOT}test/fixtures/chaos-publisher.ts`,
      'chaos-worker': `${ROOT}test/fixtures/chaos-worker.ts`,
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
    publisher: `${outdir}/chaos-publisher.mjs`,
    worker: `${outdir}/chaos-worker.mjs`,
    remove: () => rm(outdir, { recursive: true, force: true }),
  };
}
