import { type AttemptFailure, attemptFailure } from '../dead-letters/attempt-failure.js';
import {
  type DeadLetterReason,
  handlerDeadLetter,
  undecodableDeadLetter,
} from '../dead-letters/dead-letter.js';
import type { Event } from '../events/event.js';
import { describeError, type Logger } from '../support/logger.js';
import { retryDelay } from '../support/retry-policy.js';
import { HandlerCrashedError } from './errors/handler-crashed.error.js';
import { asError } from './errors/thrown-value.error.js';
import { UnknownHandlerError } from './errors/unknown-handler.error.js';
import { giveUpReason, undecodableReason } from './handler-failure.js';
import type { RuleVerdict } from './handler-gate.js';
import type { HandlerRunner } from './handler-runner.js';
import type { HandlerPlan, ResolvedHandler } from './handler-table.js';
import { ObserverSet } from './observer-set.js';
import type {
  DeadLetterStep,
  DoneStep,
  HaltStep,
  NextStep,
  PipelineOutcome,
  SettledStep,
} from './pipeline-step.js';
import type { PipelineWork, WorkTarget } from './pipeline-work.js';

/** The settings the pipeline reads. */
export interface PipelineSettings {
  /** Deliveries of one piece of work after which it is given up as `crashed` instead of run. */
  readonly maxDeliveries: number;
}

/** What a {@link HandlerPipeline} needs. */
export interface PipelineDeps {
  /** The handlers of each handling key (a `HandlerTable`). */
  readonly plans: { plan(handlingKey: string): HandlerPlan };
  /** Decodes a payload; throws the serializer's typed errors. */
  readonly decode: (payload: string) => Event;
  /** Runs one handler (timeout, idempotency); rejects with an `Error`. */
  readonly runner: Pick<HandlerRunner, 'run'>;
  /** What the scheduling rules say about a handler run now (no I/O). */
  readonly rules: { verdict(handler: string, handlingKey: string): RuleVerdict };
  /** Its settings. */
  readonly settings: PipelineSettings;
  /** Where decisions that need an operator, and failures, are logged. */
  readonly logger: Logger;
  /**
   * Told of each handler run (`onHandled`, `onHandlerFailed`); the callers
   * that store the steps tell it of retries, parked runs and dead letters.
   * @defaultValue no observer
   */
  readonly observer?: ObserverSet;
}

/** The handlers a run covers, resolved against the event's plan. */
interface Chain {
  readonly handlers: readonly ResolvedHandler[];
  /** The first one's index in the sync chain (0 for a one-handler run). */
  readonly from: number;
  readonly fanOut: readonly ResolvedHandler[];
}

const DONE: DoneStep = { op: 'done' };

/**
 * The one decision of every handler-run path (a drain's sync chain, handler
 * and retry jobs, ordered lanes): decode, find the handlers, check the
 * delivery count and the scheduling rules, run each handler (timeout,
 * idempotency), and decide what follows a failure. It runs handlers and
 * nothing else: what it decided comes back as steps, which the caller stores.
 */
export class HandlerPipeline {
  /** The bus's observers: told of runs here, of retries, parked runs and dead letters where those are stored. */
  readonly observer: ObserverSet;

  constructor(private readonly deps: PipelineDeps) {
    this.observer = deps.observer ?? new ObserverSet(deps.logger);
  }

  /** Where the pipeline logs (the drain logs what it does with a batch there too). */
  get logger(): Logger {
    return this.deps.logger;
  }

  /**
   * Runs what `work` covers, handler after handler, until a handler fails
   * with attempts left (`retry`), is paused (`park`), gives up an ordered
   * event under `afterLastAttempt: 'halt'` (`halt`), or every handler is
   * settled (`done`). A handler given up on the way becomes a `dead-letter`
   * step, a blocked one a `drop` step, and the run goes on.
   */
  async run(work: PipelineWork): Promise<PipelineOutcome> {
    let event: Event;
    try {
      event = this.deps.decode(work.payload);
    } catch (error) {
      return this.undecodable(work, error);
    }
    if (work.ordered !== undefined) event.ordering = work.ordered.ordering;
    const chain = this.chainOf(event, work.target);
    if (chain instanceof UnknownHandlerError) {
      // EVENT_HANDLERS lost the handler (or made it async) since the work was queued.
      const failures = [...work.failures, attemptFailure(chain, work.attempt)];
      const letter = this.bury(work.payload, chain.handlerName, 'unknown-handler', failures);
      return { event, fanOut: [], settled: [letter], next: DONE };
    }
    if (work.deliveries > this.deps.settings.maxDeliveries) return this.crashed(work, event, chain);
    const settled: SettledStep[] = [];
    const end = (next: NextStep): PipelineOutcome => ({ event, fanOut: chain.fanOut, settled, next });
    for (const [i, handler] of chain.handlers.entries()) {
      const index = chain.from + i;
      const attempt = i === 0 ? work.attempt : 1;
      const failures = i === 0 ? work.failures : [];
      const verdict = this.deps.rules.verdict(handler.name, event.handlingKey);
      if (verdict === 'pause') return end({ op: 'park', handler, index, attempt, failures });
      if (verdict === 'block') {
        settled.push({ op: 'drop', handler, attempt });
        continue;
      }
      // Timed and described only when an observer listens: with none, a run allocates nothing for them.
      const observed = this.observer.has('onHandled') || this.observer.has('onHandlerFailed');
      const startedAt = observed ? performance.now() : 0;
      const error = await this.attempt(handler, event, attempt);
      const ran = observed
        ? { event, handler: handler.name, attempt, durationMs: performance.now() - startedAt }
        : undefined;
      if (error === undefined) {
        if (ran !== undefined) this.observer.notify('onHandled', ran);
        continue;
      }
      const all = [...failures, attemptFailure(error, attempt)];
      const last = i === 0 ? (work.lastAttempt ?? handler.attempts) : handler.attempts;
      const reason = giveUpReason(error, attempt >= last);
      if (reason === undefined) {
        this.deps.logger.warn(
          { ...where(event, handler, attempt), error: error.message },
          work.ordered === undefined
            ? 'handler failed; it runs again after its backoff'
            : 'ordered event handler failed; it runs again after its backoff, and later events of its key wait',
        );
        if (ran !== undefined) this.observer.notify('onHandlerFailed', { ...ran, error, next: 'retry' });
        const delayMs = retryDelay(handler.backoff, attempt);
        return end({ op: 'retry', handler, index, attempt, failures: all, delayMs, error });
      }
      const given = this.giveUp(work, event, handler, index, all, reason);
      const next = given.op === 'halt' ? 'halt' : 'dead-letter';
      if (ran !== undefined) this.observer.notify('onHandlerFailed', { ...ran, error, next, reason });
      if (given.op === 'halt') return end(given);
      settled.push(given);
    }
    return end(DONE);
  }

  /** Runs one handler; resolves to what it failed with, or `undefined` when it succeeded. */
  private async attempt(handler: ResolvedHandler, event: Event, attempt: number): Promise<Error | undefined> {
    try {
      await this.deps.runner.run(handler, event, attempt);
      return undefined;
    } catch (thrown) {
      return asError(thrown, handler.name);
    }
  }

  private chainOf(event: Event, target: WorkTarget): Chain | UnknownHandlerError {
    const plan = this.deps.plans.plan(event.handlingKey);
    if (target.kind === 'event') {
      return { handlers: plan.sync.slice(target.from), from: target.from, fanOut: plan.async };
    }
    const index =
      target.kind === 'chain'
        ? plan.sync.findIndex((h) => h.name === target.handler)
        : plan.all.findIndex((h) => h.name === target.handler);
    if (index < 0) return new UnknownHandlerError(target.handler, event.handlingKey);
    if (target.kind === 'chain') return { handlers: plan.sync.slice(index), from: index, fanOut: [] };
    return { handlers: [plan.all[index] as ResolvedHandler], from: 0, fanOut: [] };
  }

  /**
   * Delivered more often than `maxDeliveries`: its worker died each time. No
   * handler of the run can be told from the one that killed it, so none runs:
   * each is given up as `crashed` (an ordered key under `halt` halts at the
   * first). The event's async handlers still fan out: each is work of its own.
   */
  private crashed(work: PipelineWork, event: Event, chain: Chain): PipelineOutcome {
    const settled: SettledStep[] = [];
    for (const [i, handler] of chain.handlers.entries()) {
      const attempt = i === 0 ? work.attempt : 1;
      const error = new HandlerCrashedError(
        handler.name,
        event.id,
        work.deliveries,
        this.deps.settings.maxDeliveries,
      );
      const failures = [...(i === 0 ? work.failures : []), attemptFailure(error, attempt)];
      const given = this.giveUp(work, event, handler, chain.from + i, failures, 'crashed');
      if (given.op === 'halt') return { event, fanOut: chain.fanOut, settled, next: given };
      settled.push(given);
    }
    return { event, fanOut: chain.fanOut, settled, next: DONE };
  }

  /** A handler that gave up: its ordered key halts (under `halt`), or it becomes a dead letter. */
  private giveUp(
    work: PipelineWork,
    event: Event,
    handler: ResolvedHandler,
    index: number,
    failures: readonly AttemptFailure[],
    reason: DeadLetterReason,
  ): HaltStep | DeadLetterStep {
    const last = failures[failures.length - 1] as AttemptFailure;
    if (work.ordered !== undefined && work.ordered.afterLastAttempt(event) === 'halt') {
      this.deps.logger.error(
        { ...where(event, handler, last.attempt), reason, error: last.error },
        'ordered event handler gave up: its key halts here until bus.ordering.redrive(key) or bus.ordering.skip(key)',
      );
      return {
        op: 'halt',
        handler: handler.name,
        index,
        attempt: last.attempt,
        failures,
        reason,
        error: last.error,
      };
    }
    return this.bury(work.payload, handler.name, reason, failures);
  }

  /** A payload no event could be decoded from: an ordered key halts, other work is dead-lettered. */
  private undecodable(work: PipelineWork, error: unknown): PipelineOutcome {
    const reason = undecodableReason(error);
    const failures = [...work.failures, attemptFailure(error, work.attempt)];
    const noEvent = { event: undefined, fanOut: [] } as const;
    if (work.ordered !== undefined) {
      const message = describeError(error).message;
      this.deps.logger.error(
        { key: work.ordered.ordering.key, seq: work.ordered.ordering.seq, reason, error: message },
        'an ordered event cannot be decoded: its key halts (register its class and re-drive it, or skip it, with bus.ordering)',
      );
      const index = work.target.kind === 'event' ? work.target.from : 0;
      const halt: HaltStep = { op: 'halt', index, attempt: work.attempt, failures, reason, error: message };
      return { ...noEvent, settled: [], next: halt };
    }
    if (work.target.kind !== 'event') {
      // Published by a worker that knew the class, read by one that does not.
      return {
        ...noEvent,
        settled: [this.bury(work.payload, work.target.handler, reason, failures)],
        next: DONE,
      };
    }
    const letter = undecodableDeadLetter(work.payload, reason, failures);
    this.deps.logger.error(
      { deadLetter: letter.id, reason, error: letter.error },
      'undecodable event kept as a dead letter; the other events go on',
    );
    return { ...noEvent, settled: [{ op: 'dead-letter', letter }], next: DONE };
  }

  private bury(
    payload: string,
    handler: string,
    reason: DeadLetterReason,
    failures: readonly AttemptFailure[],
  ): DeadLetterStep {
    const letter = handlerDeadLetter(payload, handler, reason, failures);
    this.deps.logger.error(
      { deadLetter: letter.id, handler, reason, attempts: failures.length, error: letter.error },
      'handler given up; kept as a dead letter',
    );
    return { op: 'dead-letter', letter };
  }
}

function where(event: Event, handler: ResolvedHandler, attempt: number) {
  const key = event.ordering === undefined ? {} : { orderKey: event.ordering.key, seq: event.ordering.seq };
  return { eventId: event.id, key: event.handlingKey, ...key, handler: handler.name, attempt };
}
