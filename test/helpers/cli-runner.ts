import { type ChildProcess, spawn } from 'node:child_process';

/** What a finished `commitbus` run printed, and its exit code. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A `commitbus` process still running. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<CliResult>;
}

/** Starts `commitbus <args>` from the sources (`node --import tsx`), with `env` added to this process's. */
export function startCli(args: readonly string[], env: Record<string, string> = {}): CliProcess {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/commitbus.ts', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<CliResult>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout: out, stderr: err })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs `commitbus <args>` to its end. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).exited;
}
