import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL, redisEnv } from '../helpers/redis.js';
import { redisTestBed } from '../helpers/redis-test-bed.js';
import { RoutemasterClient } from '../helpers/routemaster-client.js';
import { testCertificate, trustingAgent } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait-for.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

// `commitbus router` as an operator runs it: a process configured by the
// environment, serving HTTPS, delivering, and stopping cleanly on SIGTERM.
const { prefix: PREFIX } = redisTestBed('router-cli');
const ROOT_KEY = 'cli-root-key-5f0c';
const dir = mkdtempSync(join(tmpdir(), 'commitbus-router-cli-'));

interface RouterProcess {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** Every variable that names a Redis, ours and Routemaster's: unset for a router given none. */
const REDIS_VARIABLES = [
  'REDIS_URL',
  'COMMITBUS_REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'COMMITBUS_REDIS_CLUSTER',
  'ROUTEMASTER_REDIS_URL',
  'REDIS_ENV_KEY',
];

function runRouter(
  env: Record<string, string>,
  args: string[] = [],
  { redis = true }: { readonly redis?: boolean } = {},
): RouterProcess {
  let out = '';
  let err = '';
  const inherited = { ...process.env };
  for (const name of REDIS_VARIABLES) delete inherited[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/commitbus.ts', 'router', ...args], {
    env: { ...inherited, ...(redis ? redisEnv() : {}), COMMITBUS_PREFIX: PREFIX, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

const running: RouterProcess[] = [];
afterAll(async () => {
  for (const router of running) if (router.child.exitCode === null) router.child.kill('SIGKILL');
});

describe('commitbus router', () => {
  it('serves the API over HTTPS from its environment, delivers, and stops on SIGTERM with exit code 0', async () => {
    const certificate = await testCertificate();
    writeFileSync(join(dir, 'key.pem'), certificate.key);
    writeFileSync(join(dir, 'cert.pem'), certificate.cert);
    const receiver = await startReceiver();
    const router = runRouter({
      ROUTER_ROOT_KEY: ROOT_KEY,
      ROUTER_PORT: '0',
      ROUTER_TLS_KEY_FILE: join(dir, 'key.pem'),
      ROUTER_TLS_CERT_FILE: join(dir, 'cert.pem'),
      ROUTER_CA_FILE: join(dir, 'cert.pem'),
    });
    running.push(router);
    try {
      // The whole start line, to its newline: a chunk of stdout may end inside the port number.
      await waitFor('the router to start', () => /at https:\/\/127\.0\.0\.1:\d+ .*\n/.test(router.stdout()), {
        timeoutMs: 20_000,
        describe: () => router.stderr(),
      });
      const url = /at (https:\/\/127\.0\.0\.1:\d+)/.exec(router.stdout())?.[1] as string;
      const agent = trustingAgent(certificate);
      const root = new RoutemasterClient(url, ROOT_KEY, agent);
      const created = await root.addToken('shop');
      expect(created.status).toBe(201);
      const shop = root.as((created.json as { token: string }).token);
      expect((await shop.get('/pulse')).status).toBe(204);
      expect(
        (await shop.subscribe({ topics: ['orders'], callback: receiver.url, uuid: 'shop-sub', timeout: 0 }))
          .status,
      ).toBe(204);
      expect(
        (await shop.publish('orders', 'create', 'https://shop.test/orders/1', { data: { id: 1 } })).status,
      ).toBe(200);
      await waitFor('the delivery', () => receiver.delivered().length === 1);
      expect(receiver.delivered()).toEqual([
        expect.objectContaining({
          topic: 'orders',
          type: 'create',
          url: 'https://shop.test/orders/1',
          data: { id: 1 },
        }),
      ]);
      expect(receiver.deliveries[0]?.headers.authorization).toBe(
        `Basic ${Buffer.from('shop-sub:x').toString('base64')}`,
      );
      await agent.close();
      router.child.kill('SIGTERM');
      expect(await router.exited).toBe(0);
      expect(router.stdout()).toContain('commitbus router: stopped');
      // The root key and the client's token are never printed.
      const token = (created.json as { token: string }).token;
      for (const output of [router.stdout(), router.stderr()]) {
        expect(output).not.toContain(ROOT_KEY);
        expect(output).not.toContain(token);
      }
    } finally {
      await receiver.close();
    }
  });

  it.each([
    [{ ROUTER_PORT: 'eighty' }, 'ROUTER_PORT must be a whole number'],
    [{ ROUTER_ROLES: 'api,cron' }, 'ROUTER_ROLES lists roles among api, delivery, upkeep'],
    [{ ROUTER_TLS_KEY_FILE: join(dir, 'missing.pem') }, 'ROUTER_TLS_KEY_FILE: cannot read'],
    [{ ROUTER_ROOT_KEY: '' }, 'set ROUTER_ROOT_KEY'],
  ])('exits with code 1 and says what to fix on bad configuration: %j', async (env, message) => {
    const router = runRouter({ ROUTER_ROOT_KEY: ROOT_KEY, ROUTER_PORT: '0', ...env });
    running.push(router);
    expect(await router.exited).toBe(1);
    expect(router.stderr()).toContain(message);
    expect(router.stderr()).not.toContain(ROOT_KEY);
  });

  it('refuses to start with no Redis variable set, saying what to set; with --dev it uses the local Redis', async () => {
    const refused = runRouter({ ROUTER_ROOT_KEY: ROOT_KEY, ROUTER_PORT: '0' }, [], { redis: false });
    running.push(refused);
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain('no Redis is set: set REDIS_URL');
    expect(refused.stderr()).toContain('--dev');

    const dev = runRouter({ ROUTER_ROOT_KEY: ROOT_KEY, ROUTER_PORT: '0' }, ['--dev'], { redis: false });
    running.push(dev);
    await waitFor('the --dev router to start', () => /at http:\/\/127\.0\.0\.1:\d+ .*\n/.test(dev.stdout()), {
      timeoutMs: 20_000,
      describe: () => dev.stderr(),
    });
    expect(dev.stdout()).toContain('Redis redis://127.0.0.1:6379');
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(0);
  });

  it("runs unchanged on a Routemaster deployment's environment: its Redis, root key, clients and TLS setting", async () => {
    const receiver = await startReceiver();
    const shopToken = 'shop--0123456789abcdef0123456789abcdef';
    const router = runRouter(
      {
        ROUTEMASTER_REDIS_URL: REDIS_URL,
        ROUTEMASTER_ROOT_KEY: ROOT_KEY,
        ROUTEMASTER_CLIENTS: shopToken,
        ROUTEMASTER_SSL_VERIFY: 'NO', // the receiver's certificate is self-signed
        ROUTEMASTER_MAX_EVENT_DATA: '64',
        ROUTEMASTER_CONNECT_TIMEOUT: '2',
        ROUTEMASTER_TIMEOUT: '20',
        ROUTER_PORT: '0',
      },
      [],
      { redis: false },
    );
    running.push(router);
    const agent = new Agent();
    try {
      await waitFor('the router to start', () => /at http:\/\/127\.0\.0\.1:\d+ .*\n/.test(router.stdout()), {
        timeoutMs: 20_000,
        describe: () => router.stderr(),
      });
      const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(router.stdout())?.[1] as string;
      const shop = new RoutemasterClient(url, shopToken, agent);
      expect(
        (await shop.subscribe({ topics: ['orders'], callback: receiver.url, uuid: 'rm-sub', timeout: 0 }))
          .status,
      ).toBe(204);
      expect(
        (await shop.publish('orders', 'create', 'https://shop.test/orders/1', { data: { id: 1 } })).status,
      ).toBe(200);
      // Routemaster's limit: 64 bytes of MessagePack.
      const big = await shop.publish('orders', 'create', 'https://shop.test/orders/2', {
        data: { d: 'x'.repeat(70) },
      });
      expect(big.status).toBe(400);
      await waitFor('the delivery', () => receiver.delivered().length === 1);
      expect(receiver.delivered()).toEqual([expect.objectContaining({ url: 'https://shop.test/orders/1' })]);
      router.child.kill('SIGTERM');
      expect(await router.exited).toBe(0);
      for (const output of [router.stdout(), router.stderr()]) expect(output).not.toContain(shopToken);
    } finally {
      await agent.close();
      await receiver.close();
    }
  });
});
