import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/event-store-subscriber-process.ts', import.meta.url));

/** A `test/fixtures/event-store-subscriber-process.ts` child process. */
export interface SubscriberChild {
  readonly pid: number;
  /** Resolves once its subscription is started. */
  readonly ready: Promise<void>;
  /** Resolves once it has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Asks it to stop its subscription gracefully and exit. */
  stop(): void;
  /** SIGKILLs it and waits for it to be gone. */
  kill(): Promise<void>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

/**
 * A spawner of subscriber processes for a test file: after each test every
 * one still running is SIGKILLed and awaited, so none outlives the file.
 */
export function subscriberProcesses(): (env: Record<string, string>) => SubscriberChild {
  const running: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of running.splice(0)) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await gone;
      }
    }
  });
  return (env) => {
    const child = spawnSubscriber(env);
    running.push(child.process);
    return child;
  };
}

// Spawns a subscriber process with `env` (see the fixture for the SUB_* variables).
function spawnSubscriber(env: Record<string, string>): SubscriberChild & { process: ChildProcess } {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  if (child.pid === undefined) throw new Error('could not spawn a subscriber process');
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then(({ code, signal }) =>
      reject(new Error(`subscriber exited before ready (code ${code}, signal ${signal}): ${stderr}`)),
    );
  });
  void ready.catch(() => {});
  return {
    process: child,
    pid: child.pid,
    ready,
    exited,
    stop: () => child.send('stop'),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stderr: () => stderr,
  };
}
