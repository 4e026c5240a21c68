/**
 * A simulated worker's steps in the invariants model (see invariants-model.ts):
 * done (with fan-out), later, halt and release, chosen at random, and what each
 * reply and the state after them must be.
 */
import { asyncLane } from '../../src/ordering/lane.js';
import type { HaltReason, LaneEvent, LaneStep, StepReply } from '../../src/ordering/ordering-store.js';
import { failure, laneState, type Snapshot } from '../conformance/ordering-store/harness.js';
import { type Expected, ensure, HANDLERS, isEvent, payloadOf, type Sim } from './invariants-model.js';
import { ModelState } from './invariants-state.js';

/** The model with its workers' steps. */
export abstract class ModelSteps extends ModelState {
  /** Steps some of the lanes a worker holds; in the final drain (or when a stalled worker wakes) all are done. */
  protected async stepsOp(sim: Sim, finish: boolean): Promise<void> {
    const pre = this.state;
    const steps = this.chooseSteps(sim, finish);
    // A step of a worker that is not the lane's owner at that event is lost, whatever its lease.
    const lost = steps.map((step) => {
      if (step.op === 'release') return false;
      const s = laneState(pre, step.lane);
      return !(s.owner === sim.id && s.cur?.pos === step.position);
    });
    const doneLanes = new Set(steps.filter((s, i) => s.op === 'done' && !lost[i]).map((s) => s.lane));
    const label = steps
      .map(
        (s) =>
          `${s.op} ${s.lane}${'position' in s ? `@${s.position}` : ''}${s.op === 'done' ? ` ->[${s.fanOut}]` : ''}`,
      )
      .join(', ');
    const [replies, , post] = await this.act(`${sim.id} steps ${label}`, () =>
      this.h.store.steps(sim.id, steps),
    );
    ensure(replies.length === steps.length, 'one reply per step');
    for (const [i, step] of steps.entries()) {
      this.checkReply(sim, step, replies[i] as StepReply, lost[i] === true, pre, post);
    }
    this.verify(pre, post, doneLanes);
  }

  /** The lanes of `sim` to step and how, at random (`finish`: every lane it holds, each done). */
  private chooseSteps(sim: Sim, finish: boolean): LaneStep[] {
    const lanes = this.rng.shuffle([...sim.holding.keys()]);
    const chosen = finish ? lanes : lanes.slice(0, 1 + this.rng.int(lanes.length));
    return chosen.map((lane) => {
      const event = sim.holding.get(lane) as LaneEvent;
      const t = this.track(lane);
      const r = finish ? 0 : this.rng.next();
      const attemptsMade = event.attemptsMade + 1;
      const failures = [...event.failures, failure(attemptsMade)];
      const from = t.kind === 'async' ? 0 : this.rng.int(3);
      if (r < 0.68) {
        const fanOut = t.kind === 'async' ? [] : HANDLERS.filter(() => this.rng.chance(0.5));
        return { op: 'done', lane, position: event.position, fanOut: fanOut.map((h) => asyncLane(h, t.key)) };
      }
      if (r < 0.86) {
        const delayMs = this.rng.int(40);
        return { op: 'later', lane, position: event.position, delayMs, attemptsMade, failures, from };
      }
      if (r < 0.93) {
        const why: HaltReason = this.rng.chance(0.8)
          ? { handler: 'h0', reason: 'exhausted', error: `gave up on ${lane}@${event.position}` }
          : { reason: 'malformed', error: 'cannot decode' };
        return { op: 'halt', lane, position: event.position, attemptsMade, failures, from, why };
      }
      return { op: 'release', lane };
    });
  }

  /** What the reply to `sim`'s `step` must be (`lost`: it is not the lane's owner at that event), and the model after it. */
  private checkReply(
    sim: Sim,
    step: LaneStep,
    reply: StepReply,
    lost: boolean,
    pre: Snapshot,
    post: Snapshot,
  ): void {
    const t = this.track(step.lane);
    sim.holding.delete(step.lane);
    if (step.op === 'release') {
      ensure(reply === 'ok', `release answered ${JSON.stringify(reply)}`);
      if (laneState(pre, step.lane).owner === sim.id) {
        ensure(laneState(post, step.lane).owner === undefined, `${step.lane}: released but still owned`);
        // Invariant 5: handed back unrun, the hand-out does not count.
        const cur = t.current as Expected;
        t.current = { ...cur, cd: Math.max(0, cur.cd - 1) };
        // Queued again: q set (in ready, or popped by a worker whose list a sweep hands back).
        ensure(laneState(post, step.lane).q, `${step.lane}: released but not queued`);
      }
      return;
    }
    if (lost) {
      ensure(
        reply === 'lost',
        `${sim.id} ${step.op} ${step.lane}@${step.position}: not its lane's owner at that event, but answered ${JSON.stringify(reply)}`,
      );
      return;
    }
    ensure(
      reply !== 'lost',
      `${sim.id} ${step.op} ${step.lane}@${step.position}: the owner's step was answered lost`,
    );
    const cur = t.current;
    ensure(
      cur?.pos === step.position,
      `${step.lane}: stepped event ${step.position} is not the current one`,
      () => cur,
    );
    if (step.op === 'later' || step.op === 'halt') {
      ensure(reply === 'ok', `${step.op} answered ${JSON.stringify(reply)}`);
      t.current = {
        ...cur,
        ca: step.attemptsMade,
        cf: JSON.stringify(step.failures),
        from: step.from,
        skip: undefined,
        cd: 0,
      };
      const s = laneState(post, step.lane);
      ensure(s.owner === undefined, `${step.lane}: still owned after ${step.op}`);
      if (step.op === 'later') ensure(s.retryAt !== undefined, `${step.lane}: not waiting after later`);
      else ensure(s.halted && s.halt === JSON.stringify(step.why), `${step.lane}: not halted after halt`);
      return;
    }
    // done: the lane completes the event at exactly its next position; fan-outs go to the async lanes' tails.
    ensure(
      step.position === t.done.length + 1,
      `${step.lane}: completed ${step.position} after ${t.done.length} events`,
    );
    const payload = payloadOf(t, step.position);
    t.done.push({ pos: step.position, seq: cur.seq, prev: cur.prev, payload, fanOut: [...step.fanOut] });
    t.current = undefined;
    for (const lane of step.fanOut) {
      const a = this.track(lane);
      a.accepted.set(a.accepted.size + 1, `${cur.seq}|${cur.prev ?? ''}|${payload}`);
    }
    if (isEvent(reply)) this.handed(sim, reply, step.position + 1, post);
    else ensure(reply === 'empty', `done answered ${JSON.stringify(reply)}`);
  }
}
