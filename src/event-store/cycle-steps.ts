import type { EntityManager, ObjectLiteral } from 'typeorm';
import { applyResult } from './apply-result.js';
import { type BatchState, writesRefused } from './batch-state.js';
import { CycleFailure, step } from './cycle-failure.js';
import { EventRejectedError } from './errors/event-rejected.error.js';
import { MalformedResultError } from './errors/malformed-result.error.js';
import type { ReduceContext } from './event-model.js';
import { type ReducerResult, resultProblem } from './reducer-result.js';
import type { ResolvedModel } from './resolved-model.js';
import type { StoreEvent, StoreEventInput, SubEventRecord } from './store-event.js';
import { TransactDispatches } from './transact-dispatches.js';

/** What the reduce, apply, derive and transact steps of one event (or sub-event) work on. */
export interface StepScope {
  /** Every model, in declaration order. */
  readonly models: readonly ResolvedModel[];
  /** Every type some model knows. */
  readonly known: ReadonlySet<string>;
  /** How long one callback may take. */
  readonly timeoutMs: number;
  readonly state: BatchState;
  readonly manager: EntityManager;
  /** Types from the dispatched event down to this one. */
  readonly path: readonly string[];
  /** The event, frozen, after preprocessing. */
  readonly event: StoreEvent;
  /** A model's context for its callbacks. */
  readonly context: (model: ResolvedModel) => ReduceContext<ObjectLiteral>;
}

/** Each model's result, by model name. */
export type Results = Record<string, ReducerResult<ObjectLiteral>>;

/**
 * Runs every reducer of the event's type on the same state. Every one
 * settles (or times out) before a failure is thrown: none may still be
 * running when the event is rolled back; a timeout wins, since its
 * connection must be thrown away. A rejection (`esFail`) ends the event.
 */
export async function reduceAll(scope: StepScope): Promise<{ reducing: ResolvedModel[]; result: Results }> {
  const { event, path } = scope;
  const reducing = scope.models.filter((m) => m.model.reducers?.[event.type] !== undefined);
  const settled = await Promise.allSettled(
    reducing.map((model) =>
      step(
        'reduce',
        path,
        model.name,
        async () => {
          const reducer = model.model.reducers?.[event.type] as (
            e: StoreEvent,
            c: ReduceContext<ObjectLiteral>,
          ) => unknown;
          const value = await reducer(event, scope.context(model));
          const problem = resultProblem(value, model);
          if (problem !== undefined) throw new MalformedResultError(model.name, event.type, problem);
          return value as ReducerResult<ObjectLiteral> | undefined;
        },
        scope.timeoutMs,
      ),
    ),
  );
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((f) => f instanceof CycleFailure && f.timedOut) ?? failures[0];
  const result: Results = {};
  for (const [i, model] of reducing.entries()) {
    const s = settled[i];
    const value = s?.status === 'fulfilled' ? s.value : undefined;
    if (value !== undefined && value !== null) result[model.name] = value;
  }
  // A reducer's rejection (esFail) ends the whole event here: nothing of it is applied.
  const rejecting = reducing.find((model) => typeof result[model.name]?.esFail === 'string');
  if (rejecting !== undefined) {
    const reason = result[rejecting.name]?.esFail as string;
    const rejection = new EventRejectedError(reason, undefined, rejecting.name);
    throw new CycleFailure('reduce', path, rejection, rejecting.name);
  }
  return { reducing, result };
}

/** Writes each reducing model's result (its `applyResult`, or the built-in one). */
export async function applyAll(
  scope: StepScope,
  reducing: readonly ResolvedModel[],
  result: Results,
): Promise<void> {
  const { state, manager } = scope;
  for (const model of reducing) {
    const value = result[model.name];
    if (value === undefined) continue;
    const custom = model.model.applyResult;
    await step(
      'apply',
      scope.path,
      model.name,
      () =>
        custom
          ? custom(value, scope.context(model))
          : applyResult(
              (keys) => state.ensure(state.cache(model), manager, keys),
              state.cache(model),
              value,
              model.name,
            ),
      scope.timeoutMs,
    );
  }
}

/** Runs every model's deriver with the event and every result. */
export async function deriveAll(scope: StepScope, result: Results): Promise<void> {
  const { state, manager, event } = scope;
  for (const model of scope.models) {
    const derive = model.model.derive;
    if (derive === undefined) continue;
    const apply = async (extra: ReducerResult<ObjectLiteral>) => {
      const problem = resultProblem(extra, model);
      if (problem !== undefined)
        throw new MalformedResultError(model.name, event.type, `(the deriver's apply) ${problem}`);
      await applyResult(
        (keys) => state.ensure(state.cache(model), manager, keys),
        state.cache(model),
        extra,
        model.name,
      );
    };
    await step(
      'derive',
      scope.path,
      model.name,
      () => derive(Object.assign(scope.context(model), { event, result, own: result[model.name], apply })),
      scope.timeoutMs,
    );
  }
}

/**
 * Runs every model's transact callback. Its `ctx.dispatch` runs sub-events
 * with `runSub`, all of them before the step ends; its writes are refused
 * (a replay could not rebuild them).
 */
export async function transactAll(
  scope: StepScope,
  runSub: (sub: StoreEventInput) => Promise<SubEventRecord>,
): Promise<void> {
  for (const model of scope.models) {
    const transact = model.model.transact;
    if (transact === undefined) continue;
    const dispatches = new TransactDispatches(
      model.name,
      scope.known,
      (sub) => writesRefused.run(false, () => runSub(sub)),
      (error) => (error instanceof CycleFailure ? error.cause : error),
    );
    const ctx = Object.assign(scope.context(model), {
      event: scope.event,
      dispatch: (type: string, data?: unknown) => dispatches.dispatch(type, data),
    });
    await step(
      'transact',
      scope.path,
      model.name,
      async () => {
        let thrown: { error: unknown } | undefined;
        try {
          await writesRefused.run(true, () => transact(ctx));
        } catch (error) {
          thrown = { error };
        }
        // Every sub-event it dispatched runs before the step ends; the first failure among them wins.
        await dispatches.settle();
        if (thrown !== undefined) throw thrown.error;
      },
      scope.timeoutMs,
    );
  }
}
