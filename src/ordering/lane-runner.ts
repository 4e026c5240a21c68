import {
  type AttemptFailure,
  type AttemptFailureJson,
  attemptFailureFromJson,
  attemptFailureToJson,
} from '../dead-letters/attempt-failure.js';
import {
  type DeadLetter,
  type DeadLetterReason,
  handlerDeadLetter,
  undecodableDeadLetter,
} from '../dead-letters/dead-letter.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import type { Event } from '../events/event.js';
import type { AfterLastAttempt } from '../events/ordering-policy.js';
import type { HandlerGate } from '../handlers/handler-gate.js';
import type { HandlerPipeline } from '../handlers/handler-pipeline.js';
import { observedDeadLetters } from '../handlers/observed-dead-letters.js';
import type { PipelineOutcome } from '../handlers/pipeline-step.js';
import type { WorkTarget } from '../handlers/pipeline-work.js';
import { asyncLane, parseLane } from './lane.js';
import type { LaneEvent, LaneStep } from './ordering-store.js';

/** Held lanes a runner remembers; past it, a lane still held may be reported once more. */
const MAX_HELD = 10_000;

/** What a {@link LaneRunner} needs. */
export interface LaneRunnerDeps {
  /** The one decision of every handler run, and the bus's observers. */
  readonly pipeline: Pick<HandlerPipeline, 'run' | 'observer'>;
  /** Where blocked runs are counted. */
  readonly rules: Pick<HandlerGate, 'drop'>;
  /** Where handler runs given up under `afterLastAttempt: 'skip'` (and skipped by an operator) go. */
  readonly deadLetters: DeadLetterStore;
  /** The `afterLastAttempt` of an event's class. */
  readonly policyOf: (event: Event) => AfterLastAttempt;
  /** How soon a lane stopped by a paused handler looks again. */
  readonly pauseRecheckMs: number;
}

/**
 * Runs the current event of a lane the worker owns through the handler
 * pipeline and says what the lane does next. A sync lane runs the event's
 * sync handlers from where it stopped, then fans the event out to one async
 * lane per async handler; an async lane runs its one handler. Where ordering
 * needs its own answer, it differs from unordered work: a retry or a pause
 * holds the lane (later events of its key wait), and a handler that gives up
 * halts it under `afterLastAttempt: 'halt'`.
 */
export class LaneRunner {
  /** Lanes (at their current position) a pause holds, reported to `onParked` when they began waiting. */
  private readonly held = new Set<string>();

  constructor(private readonly deps: LaneRunnerDeps) {}

  /** Runs the lane event's handlers; resolves to the step to record. */
  async run(current: LaneEvent): Promise<LaneStep> {
    const { handler } = parseLane(current.lane);
    const skipped = current.skipped;
    if (skipped !== undefined) {
      // An operator skipped the halted event: its failed handler (or its payload) is given up.
      const failures = current.failures.map(attemptFailureFromJson);
      const reason = skipped.reason as DeadLetterReason;
      if (skipped.handler === undefined) {
        await this.bury([undecodableDeadLetter(current.payload, reason, failures)]);
        return this.done(current, []);
      }
      await this.bury([handlerDeadLetter(current.payload, skipped.handler, reason, failures)]);
      if (handler !== undefined) return this.done(current, []);
      return this.resume(current, { kind: 'event', from: current.from + 1 }, 1, []);
    }
    const target: WorkTarget =
      handler === undefined ? { kind: 'event', from: current.from } : { kind: 'handler', handler };
    return this.resume(current, target, current.attemptsMade + 1, current.failures);
  }

  private async resume(
    current: LaneEvent,
    target: WorkTarget,
    attempt: number,
    failures: readonly AttemptFailureJson[],
  ): Promise<LaneStep> {
    const { key } = parseLane(current.lane);
    const outcome = await this.deps.pipeline.run({
      payload: current.payload,
      target,
      attempt,
      failures: failures.map(attemptFailureFromJson),
      deliveries: current.deliveries,
      ordered: {
        ordering:
          current.prev === undefined
            ? { key, seq: current.seq }
            : { key, seq: current.seq, prev: current.prev },
        afterLastAttempt: this.deps.policyOf,
      },
    });
    await this.settle(outcome);
    const { next } = outcome;
    this.observe(current, outcome);
    switch (next.op) {
      case 'done':
        return this.done(
          current,
          target.kind === 'event' ? outcome.fanOut.map((h) => asyncLane(h.name, key)) : [],
        );
      case 'retry':
        return this.later(current, next.delayMs, next.attempt, next.failures, next.index);
      case 'park':
        // The lane waits where it is: ordering keeps later events behind a paused handler.
        return this.later(current, this.deps.pauseRecheckMs, next.attempt - 1, next.failures, next.index);
      case 'halt':
        return {
          op: 'halt',
          lane: current.lane,
          position: current.position,
          attemptsMade: next.attempt,
          failures: next.failures.map(attemptFailureToJson),
          from: next.index,
          why: {
            ...(next.handler !== undefined ? { handler: next.handler } : {}),
            reason: next.reason,
            error: next.error,
          },
        };
    }
  }

  /** Keeps the runs given up and counts the blocked ones. */
  private async settle(outcome: PipelineOutcome): Promise<void> {
    const letters: DeadLetter[] = [];
    for (const step of outcome.settled) {
      if (step.op === 'dead-letter') letters.push(step.letter);
      else await this.deps.rules.drop(step.handler.name);
    }
    if (letters.length > 0) await this.bury(letters);
  }

  private async bury(letters: DeadLetter[]): Promise<void> {
    await observedDeadLetters(this.deps.deadLetters, this.deps.pipeline.observer).add(letters);
  }

  /**
   * Tells the observers of a retry, and of a pause holding the lane: once
   * when it begins to wait, not at each look again.
   */
  private observe(current: LaneEvent, { event, next }: PipelineOutcome): void {
    const at = `${current.lane}@${current.position}`;
    if (next.op !== 'park') this.held.delete(at);
    if (event === undefined) return;
    const { observer } = this.deps.pipeline;
    if (next.op === 'retry') {
      const { handler, attempt, delayMs, error } = next;
      observer.notify('onRetry', { event, handler: handler.name, attempt, delayMs, error });
    } else if (next.op === 'park' && !this.held.has(at)) {
      // A lane another worker took over is never seen here again: bound what is left behind.
      if (this.held.size >= MAX_HELD) this.held.clear();
      this.held.add(at);
      observer.notify('onParked', { event, handler: next.handler.name, attempt: next.attempt });
    }
  }

  private done(current: LaneEvent, fanOut: readonly string[]): LaneStep {
    return { op: 'done', lane: current.lane, position: current.position, fanOut };
  }

  private later(
    current: LaneEvent,
    delayMs: number,
    attemptsMade: number,
    failures: readonly AttemptFailure[],
    from: number,
  ): LaneStep {
    return {
      op: 'later',
      lane: current.lane,
      position: current.position,
      delayMs,
      attemptsMade,
      failures: failures.map(attemptFailureToJson),
      from,
    };
  }
}
