/**
 * How `commitbus worker` (and `status`) start: on a bus module whose event
 * store cannot start, and on a module that fell back to the embedded
 * default (SQLite in this process's memory) because no Redis is configured.
 */
import { describe, expect, it } from 'vitest';
import { type CliProcess, type CliResult, runCli, startCli } from '../helpers/cli-runner.js';
import { waitFor } from '../helpers/wait-for.js';

const CLI_TIMEOUT = 60_000;
const ENV_MODULE = 'test/fixtures/cli-env-bus.ts';
/** No Redis variable set (empty counts as unset), and no transport asked for. */
const NO_REDIS = {
  REDIS_URL: '',
  COMMITBUS_REDIS_URL: '',
  REDIS_CLUSTER_NODES: '',
  COMMITBUS_REDIS_CLUSTER: '',
  COMMITBUS_TRANSPORT: '',
};
const STARTED = 'commitbus worker: bus';

/** Waits until `worker` exits, or starts (then stops it with SIGTERM); its result. */
async function exitedOrStopped(worker: CliProcess): Promise<CliResult> {
  await waitFor(
    'the worker to exit or start',
    () => worker.child.exitCode !== null || worker.stdout().includes(STARTED),
    {
      timeoutMs: CLI_TIMEOUT,
    },
  );
  if (worker.child.exitCode === null) worker.child.kill('SIGTERM');
  return worker.exited;
}

describe('commitbus worker, when the event store cannot start', () => {
  it('closes the worker, the bus and the DataSource, and exits 1 saying why', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    // The fixture's bus is an in-process one on purpose.
    const result = await runCli(['worker', 'test/fixtures/cli-store-start-fails.ts'], {
      COMMITBUS_TRANSPORT: 'memory',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('fixture: bus closed');
    expect(result.stderr).toContain('fixture: data source destroyed');
    expect(result.stderr).toMatch(/commitbus: .*es_items/);
    expect(result.stdout).not.toContain(STARTED);
  });
});

describe('commitbus worker, status and the other commands on the shared bus, with no Redis configured', () => {
  it('refuse the in-process SQLite it fell back to, saying what to set', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const shown = (args: string[]) => runCli(['--module', ENV_MODULE, ...args], NO_REDIS);
    const [worker, status, tokens, letters, pause] = await Promise.all([
      exitedOrStopped(startCli(['worker', ENV_MODULE], NO_REDIS)),
      shown(['status', '--json']),
      shown(['router', 'tokens', '--json']),
      shown(['dead-letters', 'list']),
      shown(['pause', 'mailOwner']),
    ]);
    for (const [result, command] of [
      [worker, 'worker'],
      [status, 'status'],
      [tokens, 'router tokens'],
      [letters, 'dead-letters list'],
      [pause, 'pause'],
    ] as const) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(
          `^commitbus: commitbus ${command} refused: the bus runs on SQLite in this process's memory \\(the embedded default\\), .*transport: transportFromEnv\\(\\) .*set REDIS_URL .*COMMITBUS_TRANSPORT=sqlite with COMMITBUS_SQLITE_FILE .*or set COMMITBUS_TRANSPORT=memory if an in-process bus is what you mean\\n$`,
        ),
      );
    }
  });

  it('run on it when COMMITBUS_TRANSPORT=memory asks for it', { timeout: CLI_TIMEOUT }, async () => {
    const asked = { ...NO_REDIS, COMMITBUS_TRANSPORT: 'memory' };
    const [worker, status] = await Promise.all([
      exitedOrStopped(startCli(['worker', ENV_MODULE], asked)),
      runCli(['--module', ENV_MODULE, 'status', '--json'], asked),
    ]);
    expect(worker.stdout).toContain(`${STARTED} events (transport sql-sqlite on SQLite :memory:)`);
    expect(worker.stdout).toContain('commitbus worker: stopped');
    expect(worker.code).toBe(0);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      bus: { transport: 'sql-sqlite' },
      backlog: { events: 0 },
    });
  });
});
