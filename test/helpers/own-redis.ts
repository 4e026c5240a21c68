import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { waitFor } from './wait-for.js';

/**
 * A redis-server of a test file's own, on a free port of 127.0.0.1, so a
 * test can stop it, start it again or freeze it (SIGSTOP: it keeps its
 * connections and answers nothing) without touching the shared Redis.
 */
export class OwnRedis {
  private server: ChildProcess | undefined;
  private frozen = false;

  private constructor(readonly port: number) {}

  /** Starts one on a free port. */
  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.start();
    return redis;
  }

  /** Its URL, `redis://127.0.0.1:<port>`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (empty: no persistence) and waits until it answers. */
  async start(): Promise<void> {
    this.server = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const probe = new Redis(this.port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    await waitFor(`redis-server on port ${this.port}`, () =>
      probe.connect().then(
        () => true,
        () => false,
      ),
    );
    probe.disconnect();
  }

  /** Freezes the server (SIGSTOP): connections stay open, commands get no answer. */
  freeze(): void {
    this.server?.kill('SIGSTOP');
    this.frozen = true;
  }

  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void {
    if (this.frozen) this.server?.kill('SIGCONT');
    this.frozen = false;
  }

  /** Kills the server (frozen or not) and waits until it is gone. */
  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    this.frozen = false;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
  }
}
