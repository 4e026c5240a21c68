import { loadavg } from 'node:os';
import { type MetricsScrapeOptions, measureMetricsScrape } from './metrics-scrape.js';
import { round, table } from './stats.js';

const ms = (value: number) => round(value, 2);
// Dead letters stored for the second measurement, scrapes per measurement.
const SCRAPE_LETTERS = Number(process.env.BENCH_SCRAPE_LETTERS ?? 100_000);
const SCRAPE_RUNS = Number(process.env.BENCH_SCRAPE_RUNS ?? 51);

/** A metrics scrape at no dead letters and at 100,000 (issue 20's target: within 1.2x); prints its table, returns the figures. */
export async function compareScrape(
  redisUrl: string,
  databaseUrl: string,
  prefix: string,
): Promise<Record<string, number>> {
  const [letters, scrapes] = [SCRAPE_LETTERS, SCRAPE_RUNS];
  const options: MetricsScrapeOptions = { redisUrl, databaseUrl, prefix, letters, scrapes };
  console.log(
    `\nMetrics scrape (createBusMetrics(bus).metrics(), a fresh registry each time) on ${redisUrl}, SQLite in memory and PostgreSQL, ` +
      `prefix ${prefix}, load average ${round(loadavg()[0] ?? 0, 2)}\n` +
      `median of ${scrapes} scrapes each of a bus with 0 dead letters and one with ${letters} (100 handlers x 2 reasons), in turn`,
  );
  const result = await measureMetricsScrape(options);
  const ratio = (t: string) => round((result[t]?.fullMs ?? 0) / (result[t]?.emptyMs ?? 1), 2);
  console.log();
  console.log(
    table([
      ['transport', 'scrape at 0, ms', `at ${letters}, ms`, 'ratio', 'target', 'list() of all, ms'],
      ...Object.entries(result).map(([t, f]) => [
        t,
        String(ms(f.emptyMs)),
        String(ms(f.fullMs)),
        `${ratio(t).toFixed(2)}x`,
        ratio(t) <= 1.2 ? '<= 1.2x met' : '<= 1.2x MISSED',
        String(ms(f.listAllMs)),
      ]),
    ]),
  );
  console.log(`load average ${round(loadavg()[0] ?? 0, 2)} at the end`);
  return {
    metrics_scrape_ratio_100k: ratio('redis'),
    metrics_scrape_0_ms: ms(result.redis?.emptyMs ?? 0),
    metrics_scrape_100k_ms: ms(result.redis?.fullMs ?? 0),
    metrics_scrape_ratio_100k_sqlite: ratio('sqlite'),
    metrics_scrape_ratio_100k_postgres: ratio('postgres'),
  };
}
