import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { removeDemoData } from '../../examples/records-service/cleanup.js';
import { PG } from '../helpers/postgres.js';
import { scanKeys } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait-for.js';

// `npm run worker` as the README runs it: SIGTERM to npm (what a process
// manager sends) reaches the worker, which finishes and exits 0. Before the
// script said `exec`, npm's shell died and left the worker running, orphaned.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PREFIX = 'i12docs-worker';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  REDIS_URL,
  DATABASE_URL: `postgres://${PG.user}@${PG.host}:${PG.port}/${PG.database}`,
  COMMITBUS_PREFIX: PREFIX,
  DEMO_PG_SCHEMA: 'i12docs_worker',
};
delete ENV.REDIS_CLUSTER_NODES;

let npm: ChildProcess | undefined;
const redis = new Redis(REDIS_URL);

afterAll(async () => {
  // The whole group: killing npm alone would leave its worker running after a failed test.
  if (npm?.pid !== undefined && npm.exitCode === null) {
    try {
      process.kill(-npm.pid, 'SIGKILL');
    } catch {
      // Gone between the check and the kill.
    }
  }
  await removeDemoData(ENV);
  redis.disconnect();
});

it('npm run worker shuts the worker down gracefully on SIGTERM to npm, and the demo cleanup leaves nothing', async () => {
  await removeDemoData(ENV);
  const child = spawn('npm', ['run', 'worker'], {
    cwd: ROOT,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, which afterAll kills whole if the test fails.
    detached: true,
  });
  npm = child;
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = once(child, 'exit');
  await waitFor('the worker to start', () => out.includes('handling bus '), {
    timeoutMs: 60_000,
    describe: () => out,
  });
  expect((await scanKeys(redis, `{${PREFIX}:*`)).length).toBeGreaterThan(0);

  child.kill('SIGTERM'); // npm's own pid, not the worker's
  const [code, signal] = await exited;
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(out).toMatch(/\[worker \d+\] stopped after finishing in-flight work/);

  const removed = await removeDemoData(ENV);
  expect(removed.schema).toBe('i12docs_worker');
  expect(removed.keys).toBeGreaterThan(0);
  expect(await scanKeys(redis, `{${PREFIX}:*`)).toEqual([]);
}, 90_000);
