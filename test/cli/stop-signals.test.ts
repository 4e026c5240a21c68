/**
 * A stop signal that comes while `commitbus worker` or `commitbus router` is
 * still starting (the bus module loading, the router's first Redis answer
 * held back) is kept: the command stops as soon as it has started, closes
 * what it opened and exits 0, instead of the signal being lost (a process
 * that never stops) or ending it before it closed anything.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli-runner.js';
import { REDIS_URL } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';

const CLI_TIMEOUT = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'commitbus-stop-signals-'));
const { prefix: PREFIX } = redisTestBed('stop-signals');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A TCP proxy to the test Redis that holds every connection it accepts,
 * reading nothing, until `release()`: a Redis that has not answered yet.
 */
async function heldRedis(): Promise<{
  url: string;
  connections: () => number;
  release(): void;
  close(): Promise<void>;
}> {
  const target = new URL(REDIS_URL);
  const sockets: Socket[] = [];
  let released = false;
  const pipe = (socket: Socket) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    sockets.push(upstream);
  };
  const held: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    if (released) pipe(socket);
    else held.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    connections: () => held.length + (released ? 1 : 0),
    release: () => {
      released = true;
      for (const socket of held.splice(0)) pipe(socket);
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('commitbus worker, signalled while it starts', () => {
  it('starts, then stops at once, closing what it opened, and exits 0', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const gate = join(dir, 'worker-gate');
    const worker = startCli(['worker', 'test/fixtures/cli-slow-start-bus.ts'], {
      COMMITBUS_TRANSPORT: 'memory',
      CLI_GATE_FILE: gate,
    });
    try {
      await waitFor(
        'the module to be making its bus',
        () => worker.stderr().includes('fixture: making the bus'),
        {
          timeoutMs: 60_000,
          describe: () => worker.stderr(),
        },
      );
      worker.child.kill('SIGTERM');
      // The signal is in; now the module may finish.
      writeFileSync(gate, '');
      const exited = await worker.exited;
      expect(exited).toMatchObject({ code: 0 });
      expect(exited.stdout).toMatch(
        /^commitbus worker: bus events .*\ncommitbus worker: SIGTERM, finishing the work in flight\ncommitbus worker: stopped\n$/,
      );
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
  });
});

describe('commitbus router, signalled while it starts', () => {
  it('starts once Redis answers, then stops at once and exits 0', { timeout: CLI_TIMEOUT }, async () => {
    const redis = await heldRedis();
    const router = startCli(['router', '--roles', 'upkeep'], {
      REDIS_URL: redis.url,
      COMMITBUS_PREFIX: PREFIX,
      ROUTEMASTER_REDIS_URL: '',
      REDIS_CLUSTER_NODES: '',
    });
    try {
      await waitFor('the router to connect to Redis', () => redis.connections() > 0, {
        timeoutMs: 60_000,
        describe: () => router.stderr(),
      });
      router.child.kill('SIGTERM');
      redis.release();
      const exited = await router.exited;
      expect(exited, exited.stderr).toMatchObject({ code: 0 });
      expect(exited.stdout).toMatch(/^commitbus router: upkeep \(Redis .*\)\ncommitbus router: stopped\n$/);
    } finally {
      if (router.child.exitCode === null) router.child.kill('SIGKILL');
      await redis.close();
    }
  });
});
