import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

/** The files the page loads from `<basePath>/assets/`, by name: uPlot, which draws the history charts. */
const ASSETS = {
  'uplot.js': { module: 'uplot/dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  'uplot.css': { module: 'uplot/dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
} as const;

/** The name of an asset the page loads. */
export type AssetName = keyof typeof ASSETS;

/** How long a browser may keep an asset: a day (they change only with the package's version). */
const ASSET_CACHE = 'public, max-age=86400';

/**
 * Serves uPlot's script and style at `<basePath>/assets/uplot.js` and
 * `uplot.css`, read once from the installed package (a dependency of
 * commitbus), with a cache header.
 */
export function registerAssets(app: FastifyInstance, base: string): void {
  const require = createRequire(import.meta.url);
  for (const [name, asset] of Object.entries(ASSETS)) {
    let body: Buffer | undefined;
    app.get(`${base}/assets/${name}`, async (_request, reply) => {
      body ??= readFileSync(require.resolve(asset.module));
      return reply.type(asset.type).header('cache-control', ASSET_CACHE).send(body);
    });
  }
}

/** Where the page finds asset `name`. */
export function assetPath(base: string, name: AssetName): string {
  return `${base}/assets/${name}`;
}
