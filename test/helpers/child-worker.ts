import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/worker-process.ts', import.meta.url));

/** A `test/fixtures/worker-process.ts` child process. */
export interface ChildWorker {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves when the child printed `ready`; rejects if it exits first. */
  readonly ready: Promise<void>;
  /** Resolves with the exit code (or signal) once the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
}

/**
 * Spawns the worker fixture (or `fixture`, a path under test/fixtures) with
 * `node --import tsx` and the given environment.
 */
export function spawnWorker(env: Record<string, string>, fixture = FIXTURE): ChildWorker {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const ready = new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.split('\n').includes('ready')) resolve();
    });
    void exited.then(({ code, signal }) =>
      reject(
        new Error(`worker ${child.pid} exited before ready (code ${code}, signal ${signal}): ${stderr}`),
      ),
    );
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${fixture}`);
  return { process: child, pid: child.pid, ready, exited, stderr: () => stderr };
}

/**
 * A list to put a test file's child workers in: after each test, every child
 * still running (a failed test left it) is SIGKILLed and awaited, so none
 * outlives the file.
 */
export function childWorkers(): ChildWorker[] {
  const children: ChildWorker[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
      await child.exited;
    }
  });
  return children;
}
