/**
 * A real Prometheus server for tests (Debian's `prometheus`, which
 * `.ci/services --install` installs): its own temporary directory and
 * TSDB, a free port on 127.0.0.1, one scrape job, rule files, everything
 * at a 1 s interval; queried through its HTTP API with undici. `stop()`
 * kills it and removes its directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort } from './free-port.js';
import { waitFor } from './wait-for.js';

/** Where Debian's package puts the server and its tool. */
export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/** Throws, saying how to install it, when Prometheus is not on this machine. */
export function requirePrometheus(): void {
  for (const binary of [PROMETHEUS, PROMTOOL]) {
    if (!existsSync(binary)) {
      throw new Error(
        `${binary} is missing: the metrics' Prometheus tests need Debian's prometheus (apt-get install prometheus, or .ci/services --install)`,
      );
    }
  }
}

/** One series of an instant query's answer. */
export interface QuerySample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

/** An alert as `/api/v1/alerts` lists it. */
export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
}

/** A running Prometheus. */
export interface PrometheusServer {
  /** Its base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** An instant query's series (throws on an error answer, such as a query that does not parse). */
  query(expr: string): Promise<QuerySample[]>;
  /** The alerts pending or firing now. */
  alerts(): Promise<PrometheusAlert[]>;
  /** Kills it and removes its directory. */
  stop(): Promise<void>;
}

/** What {@link startPrometheus} scrapes and evaluates. */
export interface PrometheusSetup {
  /** The scrape job's name (the `job` label). */
  readonly job: string;
  /** `host:port` targets of the job, scraped at `/metrics`. */
  readonly targets: readonly string[];
  /** Rule files' contents, written into its directory. */
  readonly rules: readonly string[];
}

/** Starts Prometheus and resolves once it is ready. */
export async function startPrometheus(setup: PrometheusSetup): Promise<PrometheusServer> {
  requirePrometheus();
  const dir = await mkdtemp(join(tmpdir(), 'commitbus-prometheus-'));
  const ruleFiles = await Promise.all(
    setup.rules.map(async (text, i) => {
      const file = join(dir, `rules-${i}.yml`);
      await writeFile(file, text);
      return file;
    }),
  );
  // JSON is YAML: no YAML writer needed.
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: [{ job_name: setup.job, static_configs: [{ targets: setup.targets }] }],
  };
  await writeFile(join(dir, 'prometheus.yml'), JSON.stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const server: PrometheusServer = {
    url,
    query: async (expr) => {
      const answer = await api<{ result: QuerySample[] }>(
        `${url}/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      return answer.result;
    },
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    stop: async () => {
      await kill(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(
      `Prometheus to be ready at ${url}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`Prometheus exited ${child.exitCode}: ${stderr}`);
        const response = await request(`${url}/-/ready`);
        await response.body.dump();
        return response.statusCode === 200;
      },
      { timeoutMs: 15_000, intervalMs: 50, describe: () => stderr },
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function api<T>(url: string): Promise<T> {
  const response = await request(url);
  const body = (await response.body.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`Prometheus answered ${response.statusCode}: ${body.error}`);
  return body.data;
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const late = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(late);
}
