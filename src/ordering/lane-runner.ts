import type { Event } from '../bus/event.js';
import { describeError, type Logger } from '../bus/logger.js';
import {
  type AttemptFailureJson,
  attemptFailure,
  attemptFailureFromJson,
  attemptFailureToJson,
} from '../dead-letters/attempt-failure.js';
import type { DeadLetter, DeadLetterReason } from '../dead-letters/dead-letter.js';
import { undecodableDeadLetter } from '../dead-letters/dead-letter.js';
import type { DeadLetterStore } from '../dead-letters/dead-letter-store.js';
import { backoffDelay } from '../handlers/backoff.js';
import type { Dispatcher } from '../handlers/dispatcher.js';
import { giveUpReason, undecodableReason } from '../handlers/handler-failure.js';
import type { ResolvedHandler } from '../handlers/handler-table.js';
import { asyncLane, parseLane } from './lane.js';
import type { AfterLastAttempt } from './ordering-policy.js';
import type { HaltReason, LaneEvent, LaneStep } from './ordering-store.js';

/** What a {@link LaneRunner} needs. */
export interface LaneRunnerDeps {
  /** Runs handlers (timeouts, idempotency, scheduling rules). */
  readonly dispatcher: Dispatcher;
  /** Where handler runs given up under `afterLastAttempt: 'skip'` go. */
  readonly deadLetters: DeadLetterStore;
  /** The `afterLastAttempt` of an event's class. */
  readonly policyOf: (event: Event) => AfterLastAttempt;
  /** How soon a lane stopped by a paused handler looks again. */
  readonly pauseRecheckMs: number;
  /** Where failures are logged. */
  readonly logger: Logger;
}

/**
 * Handles the current event of a lane the worker owns and says what to do
 * next. A sync lane runs the event's sync handlers in order from where it
 * stopped, then fans the event out to one async lane per async handler; an
 * async lane runs its one handler. A failure with attempts left runs the
 * event again after the handler's backoff, holding back only this lane; on
 * the last attempt the lane halts or, under `afterLastAttempt: 'skip'`, the
 * run becomes a dead letter and the lane goes on.
 */
export class LaneRunner {
  constructor(private readonly deps: LaneRunnerDeps) {}

  /** Runs the lane event's handlers; resolves to the step to record. */
  async run(current: LaneEvent): Promise<LaneStep> {
    const { dispatcher } = this.deps;
    const { key, handler } = parseLane(current.lane);
    if (current.skipped !== undefined && current.skipped.handler === undefined) {
      // An operator skipped an event that could not be decoded.
      await this.bury(
        undecodableDeadLetter(
          current.payload,
          current.skipped.reason as DeadLetterReason,
          this.failures(current),
        ),
      );
      return this.done(current, []);
    }
    let event: Event;
    try {
      event = dispatcher.decode(current.payload);
    } catch (error) {
      const reason = undecodableReason(error);
      const message = describeError(error).message;
      this.deps.logger.error(
        { lane: current.lane, position: current.position, reason, error: message },
        'an ordered event cannot be decoded: its key halts (register its class and re-drive it, or skip it, with bus.ordering)',
      );
      return this.halt(
        current,
        current.attemptsMade + 1,
        [...current.failures, failureJson(error, 1)],
        current.from,
        {
          reason,
          error: message,
        },
      );
    }
    event.ordering =
      current.prev === undefined ? { key, seq: current.seq } : { key, seq: current.seq, prev: current.prev };
    if (handler !== undefined) return this.runAsync(current, event, handler);
    const plan = dispatcher.planOf(event);
    for (let i = current.from; i < plan.sync.length; i++) {
      const sync = plan.sync[i] as ResolvedHandler;
      const first = i === current.from;
      const outcome = await this.attempt(
        current,
        event,
        sync,
        i,
        first ? current.attemptsMade : 0,
        first ? current.failures : [],
        first ? current.skipped : undefined,
      );
      if (outcome !== undefined) return outcome;
    }
    return this.done(
      current,
      plan.async.map((h) => asyncLane(h.name, key)),
    );
  }

  private async runAsync(current: LaneEvent, event: Event, name: string): Promise<LaneStep> {
    let handler: ResolvedHandler;
    try {
      handler = this.deps.dispatcher.find(event, name);
    } catch (error) {
      // EVENT_HANDLERS lost this handler since the event was fanned out.
      await this.bury(
        this.deps.dispatcher.giveUp(current.payload, name, 'unknown-handler', [attemptFailure(error, 1)]),
      );
      return this.done(current, []);
    }
    const outcome = await this.attempt(
      current,
      event,
      handler,
      0,
      current.attemptsMade,
      current.failures,
      current.skipped,
    );
    return outcome ?? this.done(current, []);
  }

  /** One handler's run; `undefined` when the lane may go on to the next handler. */
  private async attempt(
    current: LaneEvent,
    event: Event,
    handler: ResolvedHandler,
    index: number,
    attemptsMade: number,
    failures: readonly AttemptFailureJson[],
    skipped: HaltReason | undefined,
  ): Promise<LaneStep | undefined> {
    const { dispatcher } = this.deps;
    if (skipped !== undefined) {
      await this.bury(
        dispatcher.giveUp(
          current.payload,
          handler.name,
          skipped.reason as DeadLetterReason,
          failures.map(attemptFailureFromJson),
        ),
      );
      return undefined;
    }
    const verdict = dispatcher.verdict(handler, event);
    if (verdict === 'pause') {
      // The lane waits where it is: ordering keeps later events behind a paused handler.
      return this.later(current, this.deps.pauseRecheckMs, attemptsMade, failures, index);
    }
    if (verdict === 'block') {
      await dispatcher.hold('block', 'async', event, current.payload, handler, attemptsMade + 1);
      return undefined;
    }
    const attempt = attemptsMade + 1;
    try {
      await dispatcher.run(handler, event, attempt);
      return undefined;
    } catch (error) {
      const all = [...failures, failureJson(error, attempt)];
      const reason = giveUpReason(error, attempt >= handler.attempts);
      const message = describeError(error).message;
      const log = { eventId: event.id, lane: current.lane, seq: current.seq, handler: handler.name, attempt };
      if (reason === undefined) {
        this.deps.logger.warn(
          { ...log, error: message },
          'ordered event handler failed; it runs again after its backoff, and later events of its key wait',
        );
        return this.later(current, backoffDelay(handler.backoff, attempt), attempt, all, index);
      }
      if (this.deps.policyOf(event) === 'skip') {
        await this.bury(
          dispatcher.giveUp(current.payload, handler.name, reason, all.map(attemptFailureFromJson)),
        );
        return undefined;
      }
      this.deps.logger.error(
        { ...log, reason, error: message },
        'ordered event handler gave up: its key halts here until bus.ordering.redrive(key) or bus.ordering.skip(key)',
      );
      return this.halt(current, attempt, all, index, { handler: handler.name, reason, error: message });
    }
  }

  private failures(current: LaneEvent) {
    return current.failures.map(attemptFailureFromJson);
  }

  private bury(letter: DeadLetter): Promise<void> {
    return this.deps.deadLetters.add([letter]);
  }

  private done(current: LaneEvent, fanOut: readonly string[]): LaneStep {
    return { op: 'done', lane: current.lane, position: current.position, fanOut };
  }

  private later(
    current: LaneEvent,
    delayMs: number,
    attemptsMade: number,
    failures: readonly AttemptFailureJson[],
    from: number,
  ): LaneStep {
    return {
      op: 'later',
      lane: current.lane,
      position: current.position,
      delayMs,
      attemptsMade,
      failures,
      from,
    };
  }

  private halt(
    current: LaneEvent,
    attemptsMade: number,
    failures: readonly AttemptFailureJson[],
    from: number,
    why: HaltReason,
  ): LaneStep {
    return { op: 'halt', lane: current.lane, position: current.position, attemptsMade, failures, from, why };
  }
}

function failureJson(error: unknown, attempt: number): AttemptFailureJson {
  return attemptFailureToJson(attemptFailure(error, attempt));
}
