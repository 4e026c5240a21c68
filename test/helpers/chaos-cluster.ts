import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHAOS_LINES } from '../fixtures/chaos-process.js';

/** The script each role runs (see `bundleChaosProcesses`). */
export type ChaosScripts = Readonly<Record<'publisher' | 'worker', string>>;

const STDERR_KEPT = 4_000;

/** How a child process ended. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One publisher or worker process. */
class ChaosProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  ready = false;
  /** When it printed `ready` (ms since the epoch). */
  readyAt = 0;
  done = false;
  selfKilled = false;
  killedByTest = false;
  exit: Exit | undefined;
  private stderrTail = '';

  constructor(
    readonly role: 'publisher' | 'worker',
    readonly label: string,
    /** A publisher's number, 0 to publishers - 1 (kept across restarts); 0 for workers. */
    readonly index: number,
    script: string,
    env: Record<string, string>,
    onLine: (process: ChaosProcess, line: string) => void,
  ) {
    this.child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    let pending = '';
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(this, line);
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_KEPT);
    });
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** The last few kilobytes the process wrote to stderr. */
  stderr(): string {
    return this.stderrTail;
  }
}

/** What happened to the processes. */
export interface ChaosCounts {
  /** SIGKILLs the test sent to the publisher. */
  publisherKilled: number;
  /** Times the publisher SIGKILLed itself between commit and publish. */
  publisherDiedAfterCommit: number;
  /** SIGKILLs the test sent to workers. */
  workersKilled: number;
  /** Processes started, restarts included. */
  publishersStarted: number;
  workersStarted: number;
  /** Events relays published from the outbox (a relay killed before its commit counts again). */
  relayed: number;
  /** Times a live worker found an ordered lane it was handling taken over (its lease had lapsed). */
  lanesLost: number;
}

/** Options of a {@link ChaosCluster}. */
export interface ChaosClusterOptions {
  /**
   * Publisher processes. Each gets its number (0 to n - 1, kept across
   * restarts) as `CHAOS_PUBLISHER` and the count as `CHAOS_PUBLISHERS`.
   * @defaultValue 1
   */
  readonly publishers?: number;
  /**
   * Whether the random kills hit publishers too, or only workers.
   * @defaultValue true
   */
  readonly killPublishers?: boolean;
  /**
   * A process is killed only once it has been ready this long, so that it
   * gets some work done between kills however slowly processes start.
   * @defaultValue 0
   */
  readonly minUptimeMs?: number;
  /** Called (and awaited) right after the test SIGKILLed a worker, with its pid: to look at what it left. */
  readonly onWorkerKilled?: (pid: number) => unknown;
}

/**
 * The publishers and workers of a chaos test. Every process that dies of
 * SIGKILL is started again (a publisher until it prints `done`); any other
 * end is recorded as a problem, which {@link ChaosCluster.check} throws.
 */
export class ChaosCluster {
  readonly counts: ChaosCounts = {
    publisherKilled: 0,
    publisherDiedAfterCommit: 0,
    workersKilled: 0,
    publishersStarted: 0,
    workersStarted: 0,
    relayed: 0,
    lanesLost: 0,
  };
  private readonly running = new Set<ChaosProcess>();
  private readonly problems: string[] = [];
  private readonly publishers: number;
  private readonly killPublishers: boolean;
  private readonly onWorkerKilled: ((pid: number) => unknown) | undefined;
  private readonly minUptimeMs: number;
  private publishersDone = 0;
  private stopping = false;

  constructor(
    private readonly scripts: ChaosScripts,
    private readonly env: Record<string, string>,
    options: ChaosClusterOptions = {},
  ) {
    this.publishers = options.publishers ?? 1;
    this.killPublishers = options.killPublishers ?? true;
    this.onWorkerKilled = options.onWorkerKilled;
    this.minUptimeMs = options.minUptimeMs ?? 0;
  }

  /** Whether every publisher is done. */
  get published(): boolean {
    return this.publishersDone === this.publishers;
  }

  /** Starts the publishers and `workers` workers; resolves once the workers are consuming. */
  async start(workers: number): Promise<void> {
    for (let i = 0; i < workers; i++) this.spawn('worker');
    for (let i = 0; i < this.publishers; i++) this.spawn('publisher', i);
    await this.until('every worker to be ready', () =>
      [...this.running].filter((p) => p.role === 'worker').every((p) => p.ready),
    );
  }

  /** Starts one more worker. */
  addWorker(): void {
    this.spawn('worker');
  }

  /**
   * Until every publisher is done: every `minMs`-`maxMs` (random), SIGKILLs a
   * random process that has been ready for `minUptimeMs` (only workers unless
   * `killPublishers`; it is restarted). Throws after `timeoutMs`.
   */
  async killRandomlyUntilPublished(minMs: number, maxMs: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.published) {
      this.check();
      if (Date.now() > deadline) {
        throw new Error(
          `the publishers did not finish within ${timeoutMs} ms: ${JSON.stringify(this.counts)}`,
        );
      }
      await sleep(minMs + Math.random() * (maxMs - minMs));
      const readyBefore = Date.now() - this.minUptimeMs;
      const candidates = [...this.running].filter(
        (p) =>
          p.alive &&
          p.ready &&
          p.readyAt <= readyBefore &&
          !p.done &&
          (p.role === 'worker' || this.killPublishers),
      );
      const victim = candidates[Math.floor(Math.random() * candidates.length)];
      if (victim === undefined || this.published) continue;
      victim.killedByTest = true;
      victim.child.kill('SIGKILL');
      if (victim.role === 'worker' && victim.child.pid !== undefined)
        await this.onWorkerKilled?.(victim.child.pid);
    }
    this.check();
  }

  /** SIGTERMs every worker and resolves with how each exited. */
  async stopWorkers(): Promise<{ label: string; exit: Exit; stderr: string }[]> {
    this.stopping = true;
    const workers = [...this.running].filter((p) => p.role === 'worker');
    // A worker restarted a moment ago has no signal handler yet: a SIGTERM then would kill it outright.
    await this.until('every worker to be ready before it is stopped', () =>
      workers.every((w) => w.ready || !w.alive),
    );
    for (const worker of workers) worker.child.kill('SIGTERM');
    return Promise.all(
      workers.map(async (w) => ({ label: w.label, exit: await w.exited, stderr: w.stderr() })),
    );
  }

  /** SIGKILLs whatever still runs and waits for it to be gone (for `afterAll`, failures included). */
  async killAll(): Promise<void> {
    this.stopping = true;
    const left = [...this.running].filter((p) => p.alive);
    for (const p of left) {
      p.killedByTest = true;
      p.child.kill('SIGKILL');
    }
    await Promise.all(left.map((p) => p.exited));
  }

  /** Whether a process ended in a way nobody caused (a crash, an error exit). */
  get hasProblems(): boolean {
    return this.problems.length > 0;
  }

  /** Throws if a process ended in a way nobody caused (a crash, an error exit). */
  check(): void {
    if (this.problems.length > 0) throw new Error(`child process problems:\n${this.problems.join('\n')}`);
  }

  /** The stderr of every process still running, for failure messages. */
  stderr(): string {
    return [...this.running].map((p) => `--- ${p.label}\n${p.stderr()}`).join('\n');
  }

  private spawn(role: 'publisher' | 'worker', index = 0): void {
    const n = role === 'publisher' ? ++this.counts.publishersStarted : ++this.counts.workersStarted;
    const env =
      role === 'publisher'
        ? { ...this.env, CHAOS_PUBLISHER: String(index), CHAOS_PUBLISHERS: String(this.publishers) }
        : this.env;
    const p = new ChaosProcess(role, `${role}#${n}`, index, this.scripts[role], env, (proc, line) =>
      this.onLine(proc, line),
    );
    this.running.add(p);
    void p.exited.then((exit) => this.onExit(p, exit));
  }

  private onLine(p: ChaosProcess, line: string): void {
    if (line === CHAOS_LINES.ready) {
      p.ready = true;
      p.readyAt = Date.now();
    } else if (line === CHAOS_LINES.selfKill) p.selfKilled = true;
    else if (line === CHAOS_LINES.done) p.done = true;
    else if (line === CHAOS_LINES.laneLost) this.counts.lanesLost++;
    else if (line.startsWith(`${CHAOS_LINES.relayed} `)) this.counts.relayed += Number(line.split(' ')[1]);
  }

  private onExit(p: ChaosProcess, exit: Exit): void {
    this.running.delete(p);
    if (p.role === 'publisher' && p.done && exit.code === 0) {
      this.publishersDone++;
      return;
    }
    if (exit.signal === 'SIGKILL' && (p.killedByTest || p.selfKilled)) {
      if (p.role === 'worker') this.counts.workersKilled++;
      else if (p.selfKilled) this.counts.publisherDiedAfterCommit++;
      else this.counts.publisherKilled++;
      if (!this.stopping) this.spawn(p.role, p.index);
      return;
    }
    if (this.stopping && p.role === 'worker') return;
    this.problems.push(
      `${p.label} (pid ${p.child.pid}) exited on its own ${JSON.stringify(exit)}:\n${p.stderr()}`,
    );
  }

  private async until(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      this.check();
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${this.stderr()}`);
      await sleep(20);
    }
  }
}
