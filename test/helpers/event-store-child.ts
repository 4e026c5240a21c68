import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { ChildMessage, Command } from '../fixtures/event-store-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/event-store-process.ts', import.meta.url));

/** An error a child's command failed with, as the child named it. */
export class ChildCommandError extends Error {
  constructor(
    readonly label: string,
    name: string,
    message: string,
  ) {
    super(`${label}: ${name}: ${message}`);
    this.name = name;
  }
}

/** A `test/fixtures/event-store-process.ts` child process. */
export interface StoreChild {
  readonly label: string;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Resolves once the child has its store (started, with ES_START=1). */
  readonly ready: Promise<void>;
  /** Resolves once the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Each change of the child's `store.isWriter`, with the child's Date.now(). */
  readonly writerChanges: { writer: boolean; at: number }[];
  /** When the parent sent SIGKILL (Date.now()), if it did. */
  killedAt: number | undefined;
  /** Runs a command in the child; resolves with its answer, rejects with a {@link ChildCommandError}. */
  call<T = unknown>(command: Command): Promise<T>;
  /** SIGKILLs the child and waits for it to be gone. */
  kill(): Promise<void>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
}

/**
 * Spawns an event store child process (`node --import tsx`) labelled
 * `label`, with `env` on top of this process's (see the fixture for the
 * ES_* variables).
 */
export function spawnStoreChild(label: string, env: Record<string, string>): StoreChild {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, ES_LABEL: label, ...env },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${label}`);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  const writerChanges: { writer: boolean; at: number }[] = [];
  let nextId = 1;
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    void exited.then(({ code, signal }) =>
      reject(new Error(`${label} exited before ready (code ${code}, signal ${signal}): ${stderr}`)),
    );
  });
  void ready.catch(() => {});
  child.on('message', (message: ChildMessage) => {
    if ('ready' in message) onReady();
    else if ('writer' in message) writerChanges.push(message);
    else {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if ('error' in message)
        waiter?.reject(new ChildCommandError(label, message.error.name, message.error.message));
      else waiter?.resolve(message.value);
    }
  });
  void exited.then(({ code, signal }) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`${label} exited (code ${code}, signal ${signal}) before answering`));
    pending.clear();
  });
  const handle: StoreChild = {
    label,
    pid: child.pid,
    process: child,
    ready,
    exited,
    writerChanges,
    killedAt: undefined,
    call: <T>(command: Command) =>
      new Promise<T>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, ...command }, (error) => {
          if (error === null) return;
          pending.delete(id);
          reject(new Error(`${label} could not be sent ${command.cmd}: ${error.message}`));
        });
      }),
    kill: async () => {
      if (isRunning(child)) {
        handle.killedAt = Date.now();
        child.kill('SIGKILL');
      }
      await exited;
    },
    stderr: () => stderr,
  };
  return handle;
}

/**
 * A list for a test file's store children: after each test every child still
 * running is SIGKILLed and awaited, so none outlives the file.
 */
export function storeChildren(): StoreChild[] {
  const children: StoreChild[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (isRunning(child.process)) child.process.kill('SIGKILL');
      await child.exited;
    }
  });
  return children;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}
