/**
 * The serving commands' ports and addresses: a port another process holds is
 * a clean coded error for `dashboard --port` and `worker --metrics-port`
 * (exit 1, no stack), and a dashboard bound beyond loopback without auth
 * warns on stderr.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureWarning } from '../../src/cli/dashboard-command.js';
import { PortInUseError } from '../../src/cli/errors/port-in-use.error.js';
import { isAddressInUse, portInUseOr } from '../../src/cli/port-option.js';
import { type CliProcess, runCli, startCli } from '../helpers/cli-runner.js';
import { redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = 'test/fixtures/cli-bus.ts';
const { prefix } = redisTestBed('i20cli-ports');
const env = { ...redisEnv(), CLI_PREFIX: prefix, CLI_NAME: 'ports' };

// A port this process holds for the whole file.
let taken: Server;
let port = 0;
beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => taken.close(() => resolve()));
});

function refusedForPort(result: { code: number | null; stderr: string }, flag: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    `commitbus: port ${port} on 127.0.0.1 is in use (another process listens there): pick another with ${flag} <port>, or ${flag} 0 for any free port`,
  );
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('a port in use', () => {
  it('is a PortInUseError naming the flag, found through causes; other errors pass as they are', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    const wrapped = new Error('cannot serve', { cause: inUse });
    expect(isAddressInUse(wrapped)).toBe(true);
    const error = portInUseOr(wrapped, '--port', '127.0.0.1', 3100);
    expect(error).toBeInstanceOf(PortInUseError);
    expect(error).toMatchObject({ code: 'COMMITBUS_PORT_IN_USE', port: 3100, cause: wrapped });
    const other = new Error('EACCES');
    expect(portInUseOr(other, '--port', '127.0.0.1', 80)).toBe(other);
  });

  it('ends `dashboard --port` and `worker --metrics-port` with that error, exit 1', {
    timeout: 120_000,
  }, async () => {
    const [dashboard, worker] = await Promise.all([
      runCli(['--module', MODULE, 'dashboard', '--port', String(port)], env),
      runCli(['worker', MODULE, '--metrics-port', String(port)], env),
    ]);
    refusedForPort(dashboard, '--port');
    refusedForPort(worker, '--metrics-port');
  });
});

describe('a dashboard beyond loopback without auth', () => {
  it('warns for any address but loopback, and never with auth', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) {
      expect(exposureWarning(host, false)).toBeUndefined();
    }
    expect(exposureWarning('0.0.0.0', false)).toMatch(
      /listening on 0\.0\.0\.0, .* with no authentication: .*set COMMITBUS_DASHBOARD_USER/,
    );
    expect(exposureWarning('::', false)).toMatch(/listening on ::/);
    expect(exposureWarning('0.0.0.0', true)).toBeUndefined();
  });

  it('says so on stderr when `dashboard --host 0.0.0.0` serves', { timeout: 120_000 }, async () => {
    const cli: CliProcess = startCli(
      ['--module', MODULE, 'dashboard', '--port', '0', '--host', '0.0.0.0'],
      env,
    );
    try {
      await waitFor('the dashboard to serve', () => /commitbus dashboard: http:/.test(cli.stdout()), {
        timeoutMs: 60_000,
        describe: () => `${cli.stdout()}\n${cli.stderr()}`,
      });
      expect(cli.stderr()).toMatch(
        /commitbus dashboard: warning: listening on 0\.0\.0\.0, .*no authentication/,
      );
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });
});
