/**
 * What a run of the invariants model does besides stepping (see
 * invariants-model.ts): picks random operations, keeps workers' leases and
 * wakes stalled ones, publishes, takes and claims, renews, leaves, resumes
 * halted lanes and reads the port's counters, checking each reply.
 */
import type { Current, Publish } from '../conformance/ordering-store/harness.js';
import { laneState } from '../conformance/ordering-store/harness.js';
import { type Expected, ensure, LEASE_MS, payloadOf, type Sim } from './invariants-model.js';
import { ModelSteps } from './invariants-steps.js';

/** The model with every operation a run picks from. */
export abstract class ModelOperations extends ModelSteps {
  // --- operations -----------------------------------------------------------------------------------------

  /** One operation picked at random (its odds are the thresholds on `r`). */
  protected async randomOp(): Promise<void> {
    const live = this.live();
    const holders = live.filter((s) => s.holding.size > 0);
    const halted = [...this.state.lanes].filter(([, s]) => s.halted).map(([lane]) => lane);
    const r = this.rng.next() * 100;
    if (r < 22) return this.publishOp();
    if (r < 38) return this.takeOp(this.rng.pick(live), 1 + this.rng.int(3));
    if (r < 42 && this.state.ready.length > 0) return this.waitAndClaimOp(this.rng.pick(live));
    if (r < 70 && holders.length > 0) return this.stepsOp(this.rng.pick(holders), false);
    if (r < 74) return this.maintainOp(this.rng.pick(live));
    if (r < 78 && halted.length > 0) return this.resumeOp(halted);
    if (r < 81) return this.inspectOp();
    if (r < 85) return this.h.pass(3 + this.rng.int(25));
    if (this.sims.size >= 14) return this.publishOp();
    const victim = this.rng.pick(live);
    if (r < 89) {
      if (this.h.popOnly !== undefined && this.state.ready.length > 0 && this.rng.chance(0.3)) {
        await this.popOnlyOp(victim);
      }
      this.trace.push(`${victim.id} dies`);
      victim.state = 'dead';
    } else if (r < 94) {
      this.trace.push(`${victim.id} stalls`);
      victim.state = 'stalled';
      victim.wakeAt = Date.now() + LEASE_MS * (1.3 + this.rng.next());
    } else {
      await this.leaveOp(victim);
    }
  }

  /** Wakes stalled workers whose time came, renews the live ones' leases, keeps two workers live. */
  protected async housekeeping(): Promise<void> {
    for (const sim of this.sims.values()) {
      if (sim.state === 'stalled' && Date.now() >= sim.wakeAt) await this.wake(sim);
    }
    for (const sim of this.live()) {
      if (Date.now() - sim.renewedAt > LEASE_MS / 3) await this.maintainOp(sim);
    }
    while (this.live().length < 2) {
      const sim: Sim = {
        id: `w${this.sims.size + 1}`,
        state: 'live',
        holding: new Map(),
        renewedAt: 0,
        wakeAt: 0,
      };
      this.sims.set(sim.id, sim);
      this.trace.push(`${sim.id} starts`);
      await this.maintainOp(sim);
    }
  }

  /**
   * A stalled worker goes on as if nothing happened: it renews its lease first, finishes what it held
   * first, or takes more first (and may crash right after, before renewing).
   */
  private async wake(sim: Sim): Promise<void> {
    this.trace.push(`${sim.id} wakes`);
    sim.state = 'live';
    const mode = this.rng.int(3);
    if (mode === 0) await this.maintainOp(sim);
    else if (mode === 1 && sim.holding.size > 0) await this.stepsOp(sim, true);
    else if (mode === 2) {
      if (this.state.ready.length > 0 && this.rng.chance(0.3)) await this.waitAndClaimOp(sim);
      else await this.takeOp(sim, 1 + this.rng.int(2));
      if (this.rng.chance(0.4)) {
        this.trace.push(`${sim.id} dies before renewing`);
        sim.state = 'dead';
      }
    }
  }

  /**
   * Publishes `batch`, or up to three random events (explicit positions out of order or republished,
   * store-assigned ones), and checks what the store accepted and dropped.
   */
  protected async publishOp(batch?: Publish[]): Promise<void> {
    const pre = this.state;
    const events: Publish[] = batch ?? [];
    if (batch === undefined) {
      const syncTracks = [...this.tracks.values()].filter((t) => t.kind !== 'async');
      for (let n = 1 + this.rng.int(3); n > 0; n--) {
        const t = this.rng.pick(syncTracks);
        if (t.kind === 'auto') {
          events.push({ lane: t.lane, payload: '' });
        } else if (t.unpublished.length > 0 && !this.rng.chance(0.25)) {
          // Out of order: any of the next three positions not published yet.
          const [pos] = t.unpublished.splice(this.rng.int(Math.min(3, t.unpublished.length)), 1) as [number];
          events.push({ lane: t.lane, payload: `${t.lane}#${pos}`, position: pos });
        } else {
          // A republished position: handled already, waiting, or earlier in this batch.
          const seen = [
            ...t.accepted.keys(),
            ...events.filter((e) => e.lane === t.lane).map((e) => e.position as number),
          ];
          if (seen.length === 0) continue;
          const pos = this.rng.pick(seen);
          events.push({ lane: t.lane, payload: `${t.lane}#${pos}`, position: pos, republish: true });
        }
      }
    }
    if (events.length === 0) return;
    // What the store must accept: a position neither handled (below next) nor present is new.
    let drops = 0;
    const added: { lane: string; pos: number; payload: string }[] = [];
    const tails = new Map<string, number>();
    for (const e of events) {
      const s = laneState(pre, e.lane);
      if (e.position === undefined) {
        const pos = (tails.get(e.lane) ?? s.tail) + 1;
        tails.set(e.lane, pos);
        e.payload = `${e.lane}@${pos}`;
        added.push({ lane: e.lane, pos, payload: e.payload });
      } else if (
        e.position < s.next ||
        s.events.has(e.position) ||
        added.some((a) => a.lane === e.lane && a.pos === e.position)
      ) {
        drops++;
      } else {
        added.push({ lane: e.lane, pos: e.position, payload: e.payload });
      }
    }
    const label = events.map((e) => `${e.lane}${e.position === undefined ? '' : `@${e.position}`}`).join(' ');
    const [dropped, , post] = await this.act(`publish ${label}`, () => this.h.publish(events));
    ensure(dropped === drops, `publish dropped ${dropped} events, expected ${drops}`);
    for (const a of added) {
      const t = this.track(a.lane);
      t.accepted.set(a.pos, a.payload);
      ensure(
        laneState(post, a.lane).events.get(a.pos) === a.payload,
        `${a.lane}: published event not stored at ${a.pos}`,
      );
    }
    this.verify(pre, post, new Set());
  }

  /** `sim` takes up to `max` ready lanes. */
  protected async takeOp(sim: Sim, max: number): Promise<void> {
    const [events, pre, post] = await this.act(`${sim.id} take ${max}`, () => this.h.store.take(sim.id, max));
    ensure(events.length <= max, `take ${max} returned ${events.length} events`);
    for (const event of events) {
      ensure(pre.ready.includes(event.lane), `${event.lane} was taken without being in ready`);
      this.claimed(sim, event, pre, post);
    }
    this.verify(pre, post, new Set());
  }

  /** A worker pops a lane (`waitAndClaim`'s blocking pop) and dies before it claims it. */
  private async popOnlyOp(sim: Sim): Promise<void> {
    const popOnly = this.h.popOnly as (worker: string) => Promise<string | null>;
    const [lane, pre, post] = await this.act(`${sim.id} pops without claiming`, () => popOnly(sim.id));
    ensure(lane !== null && (post.taken.get(sim.id) ?? []).includes(lane), 'the popped lane is in its list');
    this.verify(pre, post, new Set());
  }

  /** `sim` waits briefly for a ready lane and claims it. */
  private async waitAndClaimOp(sim: Sim): Promise<void> {
    const [event, pre, post] = await this.act(`${sim.id} waitAndClaim`, () =>
      this.h.store.waitAndClaim(sim.id, 20),
    );
    if (event !== undefined) {
      ensure(pre.ready.includes(event.lane), `${event.lane} was claimed without being in ready`);
      this.claimed(sim, event, pre, post);
    }
    this.verify(pre, post, new Set());
  }

  /** `sim` renews its lease (and the store sweeps expired workers' lanes back). */
  private async maintainOp(sim: Sim): Promise<void> {
    sim.renewedAt = Date.now();
    const [, pre, post] = await this.act(`${sim.id} maintain`, () => this.h.store.maintain(sim.id, LEASE_MS));
    ensure(post.leases.has(sim.id), `${sim.id}: no lease after maintain`);
    this.verify(pre, post, new Set());
  }

  /** `sim` leaves: its lanes go back, nothing stays owned by it. */
  private async leaveOp(sim: Sim): Promise<void> {
    sim.state = 'gone';
    sim.holding.clear();
    const [, pre, post] = await this.act(`${sim.id} leaves`, () => this.h.store.leave(sim.id));
    // Its lease is expired, not removed: a blocking pop still in flight may
    // yet land in its list, and the next sweep hands that back too.
    ensure(
      !((post.leases.get(sim.id) ?? 0) > post.now) && (post.taken.get(sim.id) ?? []).length === 0,
      `${sim.id} still holds a lease or lanes after leaving`,
    );
    for (const lane of pre.taken.get(sim.id) ?? []) {
      ensure(post.ready.includes(lane), `${lane}: not handed back by ${sim.id} leaving`);
    }
    for (const [lane, s] of post.lanes)
      ensure(s.owner !== sim.id, `${lane}: still owned by ${sim.id}, who left`);
    this.verify(pre, post, new Set());
  }

  /** Re-drives or skips some of the `halted` lanes (and maybe one that is not halted). */
  protected async resumeOp(halted: string[]): Promise<void> {
    const chosen = this.rng.shuffle(halted).slice(0, 1 + this.rng.int(halted.length));
    if (this.rng.chance(0.3)) chosen.push(this.rng.pick([...this.tracks.keys()]));
    const mode = this.rng.chance(0.5) ? 'redrive' : 'skip';
    const [resumed, pre, post] = await this.act(`resume ${mode} ${chosen.join(' ')}`, () =>
      this.h.store.resume(mode, chosen),
    );
    const wasHalted = [...new Set(chosen)].filter((lane) => laneState(pre, lane).halted);
    ensure(resumed === wasHalted.length, `resume answered ${resumed}, ${wasHalted.length} were halted`);
    for (const lane of wasHalted) {
      const t = this.track(lane);
      const cur = t.current as Expected;
      t.current =
        mode === 'redrive'
          ? { ...cur, ca: 0, cf: '[]', cd: 0 }
          : { ...cur, skip: laneState(pre, lane).halt, cd: 0 };
      const s = laneState(post, lane);
      // Queued again: q set (in ready, or popped by a worker whose list a sweep hands back).
      ensure(!s.halted && s.halt === undefined && s.q, `${lane}: not queued after resume`);
    }
    this.verify(pre, post, new Set());
  }

  /** The port's read methods agree with the raw state. */
  private async inspectOp(): Promise<void> {
    const s = this.state;
    const [halted, pending, inHalted] = await Promise.all([
      this.h.store.halted(),
      this.h.store.pending(),
      this.h.store.pendingInHalted(),
    ]);
    const haltedLanes = [...s.lanes].filter(([, l]) => l.halted);
    ensure(pending === s.pending, `pending() ${pending}, state ${s.pending}`);
    ensure(
      inHalted === haltedLanes.reduce((sum, [, l]) => sum + l.events.size, 0),
      `pendingInHalted() ${inHalted}`,
    );
    ensure(halted.length === haltedLanes.length, 'halted() lists the halted lanes');
    for (const entry of halted) {
      const l = laneState(s, entry.lane);
      const cur = l.cur as Current;
      ensure(
        l.halted &&
          entry.waiting === l.events.size &&
          JSON.stringify(entry.why) === l.halt &&
          entry.event.position === cur.pos &&
          entry.event.seq === cur.seq &&
          entry.event.prev === cur.prev &&
          entry.event.attemptsMade === cur.ca &&
          JSON.stringify(entry.event.failures) === cur.cf &&
          entry.event.from === cur.from &&
          entry.event.payload === payloadOf(this.track(entry.lane), cur.pos),
        `halted() entry of ${entry.lane} disagrees with the state`,
        () => ({ entry, cur }),
      );
    }
  }
}
