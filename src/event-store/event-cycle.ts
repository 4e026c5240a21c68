import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager, ObjectLiteral } from 'typeorm';
import type { UnitOfWork } from '../uow/unit-of-work.js';
import type { BatchState } from './batch-state.js';
import { cycleAttempt } from './cycle-attempt.js';
import { CycleFailure } from './cycle-failure.js';
import { applyAll, deriveAll, reduceAll, type StepScope, transactAll } from './cycle-steps.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import { UnknownStoreEventTypeError } from './errors/unknown-store-event-type.error.js';
import type { CycleContext, ReduceContext } from './event-model.js';
import { frozenCopy, frozenEvent } from './frozen-data.js';
import { preprocess } from './preprocess-step.js';
import type { RowKey } from './reducer-result.js';
import type { ResolvedModel } from './resolved-model.js';
import type { ModelResults, StoreEvent, StoreEventInput, SubEventRecord } from './store-event.js';

/** How deep sub-events may nest. */
export const MAX_SUB_EVENT_DEPTH = 100;

/**
 * Set while the writer runs a cycle (`'cycle'`) or calls listeners
 * (`'listener'`): a waiting `store.dispatch` from there would wait for the
 * writer that waits for it, so it is refused.
 */
export const insideWriter = new AsyncLocalStorage<'cycle' | 'listener'>();

/** What the cycle needs besides the event. */
export interface CycleSetting {
  /** Every model, in declaration order. */
  readonly models: readonly ResolvedModel[];
  /** Every type some model knows. */
  readonly known: ReadonlySet<string>;
  /** What an unknown type does. */
  readonly unknownTypes: 'halt' | 'record';
  /** How long one step's callback may take before the event fails (see EventStoreOptions). */
  readonly stepTimeoutMs: number;
  /**
   * Set by a replay. Preprocessors do not run (history keeps their output).
   * `'all'` (every model rebuilt): the rest of the cycle runs as it does
   * today, sub-events and transact included. `'some'` (a few models): the
   * sub-events are the ones history stored, and transact does not run.
   */
  readonly replaying?: 'all' | 'some';
}

/** What handling one event (and its sub-events) produced. */
export interface CycleOutcome {
  /** The event's type after preprocessing (its canonical form). */
  readonly type: string;
  /** The event's data after preprocessing. */
  readonly data: unknown;
  /** Each model's result. */
  readonly result: ModelResults;
  /** Its sub-events, depth-first. */
  readonly events: readonly SubEventRecord[];
  /** False when its type was unknown and recorded without handling. */
  readonly known: boolean;
}

/**
 * Handles one event in the caller's transaction: preprocess, reduce (every
 * model on the same state), apply, derive, sub-events depth-first, transact.
 * Throws a {@link CycleFailure} naming the step, model and sub-event path.
 */
export function runCycle(
  setting: CycleSetting,
  state: BatchState,
  manager: EntityManager,
  uow: () => UnitOfWork,
  event: StoreEvent,
  stored: readonly SubEventRecord[] = [],
): Promise<CycleOutcome> {
  return insideWriter.run('cycle', () =>
    cycleAttempt.run({ abandoned: false }, () =>
      handle(setting, state, manager, uow, event, [event.type], 0, stored),
    ),
  );
}

async function handle(
  setting: CycleSetting,
  state: BatchState,
  manager: EntityManager,
  uow: () => UnitOfWork,
  input: StoreEvent,
  path: readonly string[],
  depth: number,
  stored: readonly SubEventRecord[],
): Promise<CycleOutcome> {
  const replaying = setting.replaying !== undefined;
  const fromHistory = setting.replaying === 'some';
  if (!setting.known.has(input.type)) {
    if (setting.unknownTypes === 'record')
      return { type: input.type, data: input.data, result: {}, events: [], known: false };
    throw new CycleFailure('type', path, new UnknownStoreEventTypeError(input.type, [...setting.known]));
  }
  const added = new Map<ResolvedModel, StoreEventInput[]>();
  const context = (model: ResolvedModel): ReduceContext<ObjectLiteral> => {
    const base: CycleContext = {
      manager,
      get uow() {
        return uow();
      },
      addEvent: (type, data) => {
        const list = added.get(model) ?? [];
        list.push({ type, data: data ?? null });
        added.set(model, list);
      },
      replaying,
    };
    const cache = state.cache(model);
    return Object.assign(base, {
      repository: manager.getRepository(model.metadata.target),
      get: async (key: RowKey<ObjectLiteral>) => (await state.row(cache, manager, key)) ?? undefined,
    });
  };

  const frozen = frozenEvent(input);
  const event = replaying ? frozen : await preprocess(setting, frozen, path, context);

  const scope: StepScope = {
    models: setting.models,
    known: setting.known,
    timeoutMs: setting.stepTimeoutMs,
    state,
    manager,
    path,
    event,
    context,
  };
  const { reducing, result } = await reduceAll(scope);
  const subEvents: StoreEventInput[] = [];
  for (const model of setting.models) {
    subEvents.push(...(result[model.name]?.events ?? []), ...(added.get(model) ?? []));
    added.delete(model);
  }
  await applyAll(scope, reducing, result);
  await deriveAll(scope, result);
  for (const model of setting.models) subEvents.push(...(added.get(model) ?? []));
  added.clear();

  const records: SubEventRecord[] = [];
  const runSub = async (sub: StoreEventInput): Promise<SubEventRecord> => {
    if (depth + 1 > MAX_SUB_EVENT_DEPTH) {
      throw new CycleFailure(
        'store',
        path,
        new EventStoreUsageError(
          `sub-events nest deeper than ${MAX_SUB_EVENT_DEPTH}: a sub-event keeps adding itself; make the reducer of a sub-event stop adding events`,
        ),
      );
    }
    const subEvent: StoreEvent = { v: event.v, ts: event.ts, type: sub.type, data: frozenCopy(sub.data) };
    const children = fromHistory ? ((sub as SubEventRecord).events ?? []) : [];
    const out = await handle(
      setting,
      state,
      manager,
      uow,
      subEvent,
      [...path, sub.type],
      depth + 1,
      children,
    );
    const record = { type: out.type, data: out.data, result: out.result, events: out.events };
    records.push(record);
    return record;
  };
  if (fromHistory) {
    for (const sub of stored) await runSub(sub);
    return { type: event.type, data: event.data, result, events: records, known: true };
  }
  for (const sub of subEvents) await runSub(sub);

  await transactAll(scope, runSub);
  // Sub-events added during transact (ctx.addEvent) run after it, in order.
  for (const model of setting.models) {
    for (const sub of added.get(model) ?? []) await runSub(sub);
  }
  return { type: event.type, data: event.data, result, events: records, known: true };
}
