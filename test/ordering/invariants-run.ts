/**
 * A whole run of the invariants model (see invariants-model.ts): lanes
 * planned, random operations, the drain and the final checks; and the runs of
 * one adapter, one seed after another, as a test runs them.
 */
import { asyncLane, syncLane } from '../../src/ordering/lane.js';
import type { Harness, Publish } from '../conformance/ordering-store/harness.js';
import { ensure, HANDLERS, OPS, payloadOf, Rng, RUNS, SEED, type Track } from './invariants-model.js';
import { ModelOperations } from './invariants-operations.js';

/** One seeded run on one adapter. */
export class ModelRun extends ModelOperations {
  async run(ops: number): Promise<void> {
    const keys = 2 + this.rng.int(3);
    for (let k = 0; k < keys; k++) {
      const key = `k${k}`;
      const kind = k % 2 === 0 ? 'explicit' : 'auto';
      const planned = kind === 'explicit' ? 4 + this.rng.int(9) : 0;
      this.addTrack(syncLane(key), key, kind, planned);
      for (const handler of HANDLERS) this.addTrack(asyncLane(handler, key), key, 'async', 0);
    }
    this.state = await this.snap();
    for (let i = 0; i < ops; i++) {
      await this.housekeeping();
      await this.randomOp();
    }
    await this.drain();
    await this.finalChecks();
  }

  private addTrack(lane: string, key: string, kind: Track['kind'], planned: number): void {
    this.tracks.set(lane, {
      lane,
      key,
      kind,
      accepted: new Map(),
      unpublished: Array.from({ length: planned }, (_, i) => i + 1),
      done: [],
      current: undefined,
    });
  }

  // --- the end of a run -----------------------------------------------------------------------------------

  /** Publishes what is left and lets live workers finish everything (re-driving or skipping halts). */
  private async drain(): Promise<void> {
    this.trace.push('--- drain');
    const rest: Publish[] = [];
    for (const t of this.tracks.values()) {
      for (const pos of this.rng.shuffle(t.unpublished.splice(0))) {
        rest.push({ lane: t.lane, payload: `${t.lane}#${pos}`, position: pos });
      }
    }
    if (rest.length > 0) await this.publishOp(rest);
    for (const sim of this.sims.values()) if (sim.state === 'stalled') sim.state = 'dead';
    // Stuck means no event handed out or completed for 100 rounds (2 s of leases and retries coming due).
    for (let idle = 0; !this.finished(); ) {
      ensure(idle < 100, 'the lanes did not drain', () => ({
        lanes: [...this.state.lanes].map(([lane, l]) => ({ lane, ...l, events: [...l.events] })),
        ready: this.state.ready,
        taken: [...this.state.taken],
        leases: [...this.state.leases],
        now: this.state.now,
        sims: [...this.sims.values()].map((w) => [w.id, w.state, [...w.holding.keys()]]),
      }));
      const before = this.progress();
      await this.housekeeping();
      const halted = [...this.state.lanes].filter(([, s]) => s.halted).map(([lane]) => lane);
      if (halted.length > 0) await this.resumeOp(halted);
      for (const sim of this.live()) {
        if (sim.holding.size > 0) await this.stepsOp(sim, true);
        else await this.takeOp(sim, 4);
      }
      if (this.progress() > before) idle = 0;
      else if (!this.finished()) {
        idle++;
        await this.h.pass(20);
      }
    }
  }

  private progress(): number {
    return [...this.tracks.values()].reduce((sum, t) => sum + t.done.length, this.handouts);
  }

  private finished(): boolean {
    return (
      this.state.pending === 0 &&
      [...this.tracks.values()].every((t) => t.unpublished.length === 0 && t.done.length === t.accepted.size)
    );
  }

  private async finalChecks(): Promise<void> {
    for (const t of this.tracks.values()) {
      // Every accepted event completed once, in position order, none skipped.
      ensure(
        t.done.every((d, i) => d.pos === i + 1 && d.payload === payloadOf(t, d.pos)),
        `${t.lane}: completed out of order`,
        () => t.done,
      );
      if (t.kind === 'explicit') {
        ensure(
          t.accepted.size === Math.max(0, ...t.accepted.keys()),
          `${t.lane}: a published position is missing`,
        );
      }
      if (t.kind === 'async') {
        // Each async lane saw its key's events in the sync lane's order, with their seq and prev.
        const sync = this.track(syncLane(t.key));
        const expected = sync.done
          .filter((d) => d.fanOut.includes(t.lane))
          .map((d) => [d.seq, d.prev, d.payload]);
        ensure(
          JSON.stringify(t.done.map((d) => [d.seq, d.prev, d.payload])) === JSON.stringify(expected),
          `${t.lane}: did not get the sync lane's events in order`,
        );
      } else {
        t.done.forEach((d, i) => {
          ensure(d.prev === t.done[i - 1]?.seq, `${t.lane}: prev chain broken at ${d.pos}`);
        });
      }
    }
    ensure(
      (await this.h.store.pending()) === 0 && (await this.h.store.pendingInHalted()) === 0,
      'events left after the drain',
    );
    ensure((await this.h.store.halted()).length === 0, 'halted lanes left after the drain');
    for (const [lane, l] of this.state.lanes) {
      ensure(
        l.cur === undefined && l.owner === undefined && !l.halted && l.retryAt === undefined,
        `${lane}: not idle after the drain`,
      );
    }
  }
}

/** What {@link runModels} runs. */
export interface ModelRuns {
  /** The adapter's name, in the failure. */
  readonly name: string;
  /** A fresh adapter for each run. */
  readonly harness: () => Harness;
  /** The test file, for the rerun command in the failure. */
  readonly file: string;
  /** Runs (`RUNS` unless given). */
  readonly runs?: number;
  /** Operations per run (`OPS` unless given). */
  readonly ops?: number;
}

/**
 * Runs `runs` (`RUNS`) seeded runs of `ops` (`OPS`) operations on one adapter, seeds `SEED`,
 * `SEED + 1`, ...; a failure names the seed, the command that reruns it and
 * the last operations.
 */
export async function runModels({ name, harness, file, runs = RUNS, ops = OPS }: ModelRuns): Promise<void> {
  for (let run = 0; run < runs; run++) {
    const seed = (SEED + run) >>> 0;
    const model = new ModelRun(harness(), new Rng(seed));
    try {
      await model.run(ops);
    } catch (error) {
      throw new Error(
        `${name}: run with seed ${seed} failed: ${(error as Error).message}\n` +
          `rerun: ORDERING_SEED=${seed} ORDERING_RUNS=1 npx vitest run ${file}\n` +
          `last operations:\n${model.recent()}`,
        { cause: error },
      );
    }
  }
}
