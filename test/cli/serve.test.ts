/**
 * The `commitbus` commands that serve over HTTP, run as an operator runs
 * them (a child process on `test/fixtures/cli-bus.ts`, Redis): `worker
 * --metrics-port` serves /metrics while it works, `dashboard` serves the
 * page and its API until SIGTERM.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/index.js';
import makeBus from '../fixtures/cli-bus.js';
import { type CliProcess, runCli, startCli } from '../helpers/cli-runner.js';
import { recordCreated } from '../helpers/events.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
const { prefix, redis } = redisTestBed('i12cli-serve');
// Each run starts node with tsx (seconds on a busy machine): generous per test.
const CLI_TIMEOUT = 120_000;

function envOf(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...redisEnv(), CLI_PREFIX: prefix, CLI_NAME: name, ...extra };
}

const open: EventBus[] = [];
const children: CliProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.child.exitCode === null) child.child.kill('SIGKILL');
  for (const bus of open.splice(0)) await bus.close();
});

async function publisher(name: string): Promise<EventBus> {
  Object.assign(process.env, envOf(name));
  const { bus } = await makeBus();
  open.push(bus);
  return bus;
}

/** Starts a serving command and waits for the line carrying its URL. */
async function serving(args: string[], env: Record<string, string>, line: RegExp) {
  const cli = startCli(args, env);
  children.push(cli);
  let url = '';
  await waitFor(
    'the command to print its address',
    () => {
      url = line.exec(cli.stdout())?.[1] ?? '';
      return url !== '';
    },
    { timeoutMs: 60_000, describe: () => `${cli.stdout()}\n${cli.stderr()}` },
  );
  return { cli, url };
}

describe('commitbus worker --metrics-port', () => {
  it('serves the Prometheus metrics of the work it did, and stops on SIGTERM', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await publisher('metrics');
    const { cli, url } = await serving(
      ['worker', MODULE, '--metrics-port', '0'],
      envOf('metrics'),
      /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/,
    );
    await bus.publish(recordCreated('m1'));
    await waitFor('the handlers to run', async () =>
      (await redis.lrange(`${prefix}:runs`, 0, -1)).includes('mailOwner:m1'),
    );
    const handled = async () => {
      const text = await (await request(url)).body.text();
      return sampleValue(parsePrometheusText(text), 'commitbus_handler_runs_handled_total', {
        handler: 'mailOwner',
        key: 'RECORD.CREATE',
      });
    };
    // The worker counts the run once its job has finished: wait for the scrape to show it.
    await waitFor('the metrics to count the run', async () => (await handled().catch(() => 0)) === 1);
    cli.child.kill('SIGTERM');
    const exited = await cli.exited;
    expect(exited.code).toBe(0);
    await expect(request(url)).rejects.toThrow();
  });

  it('refuses a port that is no port, saying which flag', { timeout: CLI_TIMEOUT }, async () => {
    const result = await runCli(['worker', MODULE, '--metrics-port', 'http'], envOf('metrics-bad'));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('commitbus: --metrics-port must be a port number 0..65535, got "http"\n');
  });
});

describe('commitbus dashboard', () => {
  it('serves the page and its API for the bus module, behind basic auth from the env, until SIGTERM', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const bus = await publisher('dash');
    await bus.publish(recordCreated('d1')); // No worker: it waits in the backlog.
    const { cli, url } = await serving(
      ['--module', MODULE, 'dashboard', '--port', '0', '--base-path', '/ops'],
      envOf('dash', { COMMITBUS_DASHBOARD_USER: 'ops', COMMITBUS_DASHBOARD_PASSWORD: 's3cret-pw' }),
      /commitbus dashboard: (http:\/\/127\.0\.0\.1:\d+\/ops)/,
    );
    expect((await request(`${url}/`)).statusCode).toBe(401);
    const authorization = `Basic ${Buffer.from('ops:s3cret-pw').toString('base64')}`;
    const page = await request(`${url}/`, { headers: { authorization } });
    expect(page.statusCode).toBe(200);
    const html = await page.body.text();
    expect(html).toContain('dash');
    expect(html).toContain('<span class="meta" id="bull-board-mode">read-only</span>');
    const overview = await request(`${url}/api/overview`, { headers: { authorization } });
    const body = (await overview.body.json()) as { status: { backlog?: { events: number } } };
    expect(body.status.backlog?.events).toBe(1);
    cli.child.kill('SIGTERM');
    const exited = await cli.exited;
    expect(exited.code).toBe(0);
    expect(exited.stdout + exited.stderr).not.toContain('s3cret-pw');
  });

  it('mounts bull-board read-only unless --bull-board-writable, and takes --refresh-ms', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    await publisher('dash-board');
    const { cli, url } = await serving(
      ['--module', MODULE, 'dashboard', '--port', '0', '--bull-board-writable', '--refresh-ms', '1000'],
      envOf('dash-board'),
      /commitbus dashboard: (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const page = await (await request(`${url}/`)).body.text();
    expect(page).toContain('<span class="meta" id="bull-board-mode">writable</span>');
    expect(page).toContain('data-refresh-ms="1000"');
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  });

  it('refuses half of the basic-auth pair', { timeout: CLI_TIMEOUT }, async () => {
    const result = await runCli(
      ['--module', MODULE, 'dashboard', '--port', '0'],
      envOf('dash-half', { COMMITBUS_DASHBOARD_USER: 'ops' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'commitbus: set both COMMITBUS_DASHBOARD_USER and COMMITBUS_DASHBOARD_PASSWORD, or neither\n',
    );
  });
});

describe('a bus module that never makes its bus', () => {
  it('fails with exit code 1 saying so, instead of ending quietly with 0', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const result = await runCli(['--module', 'test/fixtures/cli-hang.ts', 'status', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('commitbus: the command never finished');
  });
});

describe('--json with a bus module that writes to stdout itself', () => {
  it("keeps stdout one JSON document; the module's writes go to stderr", {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const result = await runCli(
      ['--module', 'test/fixtures/cli-noisy.ts', 'status', '--json'],
      envOf('noisy'),
    );
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout) as { bus: { name: string } };
    expect(status.bus.name).toBe('noisy');
    expect(result.stderr).toContain('noise while making the bus');
  });
});
