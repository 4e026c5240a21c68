/**
 * `npm run demo` (examples/records-service/demo.ts) as a child process on
 * the embedded default, its SQLite file in a temporary directory of its
 * own, so test files running at once never share one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEMO = 'examples/records-service/demo.ts';

/** A running demo. */
export interface DemoRun {
  readonly process: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /**
   * Resolves in the same tick as the chunk of output holding `text` arrives
   * (so a kill lands as close behind it as it can); rejects if the demo exits first.
   */
  printed(text: string): Promise<void>;
  /** Resolves once it exited, with its exit code (or signal) and all it printed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** A test file's demos: their directory and the runs started in it. */
export interface DemoBed {
  /** The temporary directory the demos' files go in. */
  readonly dir: string;
  /** A path in {@link DemoBed.dir}. */
  file(name: string): string;
  /** Starts the demo on the SQLite file `file`, with no Redis or PostgreSQL in its environment. */
  start(file: string): DemoRun;
  /** Runs the demo on `file` to its end; throws with what it printed unless it exits 0. */
  run(file: string): Promise<string>;
}

/**
 * The test file's {@link DemoBed}: a temporary directory, removed after the
 * file, once every demo still running (a failed test left it) is killed.
 */
export function demoBed(): DemoBed {
  const dir = mkdtempSync(join(tmpdir(), 'commitbus-demo-'));
  const runs: DemoRun[] = [];
  afterAll(async () => {
    for (const run of runs) {
      if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill('SIGKILL');
      await run.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const start = (file: string) => {
    const run = startDemo(file);
    runs.push(run);
    return run;
  };
  return {
    dir,
    file: (name) => join(dir, name),
    start,
    run: async (file) => {
      const { code, signal, output } = await start(file).exited;
      if (code !== 0) throw new Error(`the demo exited with code ${code}, signal ${signal}:\n${output}`);
      return output;
    },
  };
}

function startDemo(file: string): DemoRun {
  const env: NodeJS.ProcessEnv = { ...process.env, DEMO_SQLITE_FILE: file };
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'REDIS_CLUSTER_NODES', 'COMMITBUS_TRANSPORT']) {
    delete env[name];
  }
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiting = new Set<{ readonly text: string; readonly resolve: () => void }>();
  const add = (chunk: string) => {
    output += chunk;
    for (const waiter of waiting) {
      if (!output.includes(waiter.text)) continue;
      waiting.delete(waiter);
      waiter.resolve();
    }
  };
  child.stdout.setEncoding('utf8').on('data', add);
  child.stderr.setEncoding('utf8').on('data', add);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => child.once('close', (code, signal) => resolve({ code, signal, output })),
  );
  const printed = (text: string) =>
    output.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiting.add({ text, resolve });
          void exited.then(({ code, signal }) =>
            reject(
              new Error(
                `the demo exited (code ${code}, signal ${signal}) before printing "${text}":\n${output}`,
              ),
            ),
          );
        });
  return { process: child, output: () => output, printed, exited };
}

/** The line of `output` that starts with `start` (leading spaces aside), trimmed. */
export function demoLine(output: string, start: string): string | undefined {
  return output
    .split('\n')
    .find((l) => l.trimStart().startsWith(start))
    ?.trim();
}

/** The summary's lines: those after `all handled ...`, up to the blank line. */
export function summaryLines(output: string): string[] {
  const lines = output.split('\n');
  const from = lines.findIndex((l) => l.startsWith('all handled '));
  if (from < 0) return [];
  const to = lines.indexOf('', from);
  return lines.slice(from + 1, to < 0 ? undefined : to).map((l) => l.trim());
}

/** The files in `dir` (what a demo left there). */
export function filesIn(dir: string): string[] {
  return readdirSync(dir).sort();
}
