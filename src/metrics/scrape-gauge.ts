import { Gauge, type Registry } from 'prom-client';

/** A gauge's samples at one scrape, each with its labels. */
export type Samples = Iterable<[Record<string, string>, number]>;

/** How long one read serves the gauges: every gauge of one scrape shares it. */
const READ_REUSE_MS = 1_000;

/** One sample without labels. */
export const one = (value: number): Samples => [[{}, value]];

/**
 * Wraps a read for scrape-time gauges: one call serves every gauge of a
 * scrape (reused for a second), and a read that fails resolves to
 * `undefined` after `failed` heard why, so the gauges keep their last values.
 */
export function sharedScrapeRead<T>(
  read: () => Promise<T>,
  failed: (error: unknown) => void,
): () => Promise<T | undefined> {
  let cached: { at: number; read: Promise<T | undefined> } | undefined;
  return () => {
    const now = Date.now();
    if (cached === undefined || now - cached.at > READ_REUSE_MS) {
      // A read that throws at once fails like one that rejects.
      const promise = Promise.resolve()
        .then(read)
        .catch((error: unknown) => {
          failed(error);
          return undefined;
        });
      cached = { at: now, read: promise };
    }
    return cached.read;
  };
}

/**
 * Registers a gauge whose samples `pick` takes from `read`'s figures at each
 * scrape (a collect callback); a labelled gauge is reset first, so a label
 * set `pick` no longer gives vanishes. Nothing changes when `read` gives `undefined`.
 */
export function scrapeGauge<T>(
  registry: Registry,
  read: () => Promise<T | undefined>,
  metric: { readonly name: string; readonly help: string; readonly labelNames?: readonly string[] },
  pick: (figures: T) => Samples,
): void {
  const labelNames = metric.labelNames ?? [];
  const gauge: Gauge<string> = new Gauge({
    name: metric.name,
    help: metric.help,
    labelNames,
    registers: [registry],
    collect: async () => {
      const figures = await read();
      if (figures === undefined) return;
      if (labelNames.length > 0) gauge.reset();
      for (const [labels, value] of pick(figures)) gauge.set(labels, value);
    },
  });
}
