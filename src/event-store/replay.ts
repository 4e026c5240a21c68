import type { QueryRunner } from 'typeorm';
import { UnitOfWork } from '../uow/unit-of-work.js';
import type { UnitOfWorkBus } from '../uow/unit-of-work-bus.js';
import { BatchState } from './batch-state.js';
import { CycleFailure, timedOut } from './cycle-failure.js';
import { EventStoreUsageError } from './errors/event-store-usage.error.js';
import { type CycleSetting, runCycle } from './event-cycle.js';
import { type EventQueue, type FinishedEvent, finishedEvent } from './event-queue.js';
import type { ResolvedModel } from './resolved-model.js';
import type { CacheTuning } from './side-effects.js';

/** Replay progress: how far through history (`v` of `total`), and how many events were replayed. */
export interface ReplayProgress {
  /** Events replayed so far (skipped ones, and ignored ones no model knows, are passed over). */
  readonly done: number;
  /** The version the replay goes up to: `v === total` at the end. */
  readonly total: number;
  /** The last version looked at. */
  readonly v: number;
}

/** What to rebuild and how to report. */
export interface ReplayOptions {
  /** Names of the models to rebuild. @defaultValue every model */
  readonly models?: readonly string[];
  /** Called after each page of events. */
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** How long to wait to become the writer, in ms. @defaultValue 30000 */
  readonly timeoutMs?: number;
}

/** What a replay did. */
export interface ReplayReport {
  /** The models rebuilt. */
  readonly models: readonly string[];
  /** Events replayed: handled ones, and ignored ones a model now knows (skipped ones are not). */
  readonly events: number;
  /** The version the tables are at, as before. */
  readonly version: number;
}

const PAGE = 500;

const DISCARDING_BUS: UnitOfWorkBus = {
  dataSource: undefined,
  useDataSource: () => undefined,
  openEvents: () => ({
    add: () => undefined,
    list: () => [],
    beforeCommit: async () => undefined,
    flush: async () => undefined,
  }),
};

/**
 * Rebuilds models from history in one transaction on the writer's
 * connection: empties their tables, then handles every handled (and ignored:
 * a model added since may know its type) event 1..N again. Preprocessors do
 * not run (history keeps the data they made). Rebuilding every model runs
 * the rest of the cycle as the code now is, sub-events and transact
 * included, and stores in history the results and sub-events it made;
 * rebuilding some models runs their reducers, apply steps and derivers over
 * each event and the sub-events history kept for it. Bus
 * events registered are dropped and listeners are not called. A failure
 * rolls everything back and leaves the tables as they were.
 */
export async function replayModels(
  runner: QueryRunner,
  queue: EventQueue,
  setting: CycleSetting,
  tuning: CacheTuning,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const chosen = pickModels(setting.models, options.models);
  const replaying: CycleSetting = {
    models: chosen,
    known: setting.known,
    unknownTypes: 'record',
    stepTimeoutMs: setting.stepTimeoutMs,
    replaying: chosen.length === setting.models.length ? 'all' : 'some',
  };
  // Bus events registered during a replay are dropped: they went out when the events were first handled.
  const discard = new UnitOfWork(runner.manager, DISCARDING_BUS);
  const noBus = (): UnitOfWork => discard;
  const state = new BatchState(runner, chosen, { dialect: queue.tables.dialect, uncached: tuning.uncached });
  state.attach();
  await runner.startTransaction();
  try {
    const { handled } = await queue.versions(runner.manager);
    const [counted] = await queue.tables.rows<{ n: string | number }>(
      runner.manager,
      `SELECT COUNT(*) AS n FROM ${queue.tables.events} WHERE v <= ${queue.tables.p(1)}`,
      [handled],
    );
    if (Number(counted?.n ?? 0) !== handled) {
      throw new EventStoreUsageError(
        `history holds ${counted?.n ?? 0} of the ${handled} handled events (it was pruned): a replay needs every event from v1; restore the history or rebuild the tables another way`,
      );
    }
    for (const model of chosen) {
      await runner.manager.createQueryBuilder().delete().from(model.metadata.target).execute();
    }
    let done = 0;
    const rewrite = replaying.replaying === 'all';
    const outcomes: FinishedEvent[] = [];
    for (let from = 1; from <= handled; from += PAGE) {
      const page = await queue.range(runner.manager, from, Math.min(handled, from + PAGE - 1));
      for (const event of page) {
        // An ignored event is replayed too: a model added since may know its type now.
        if (event.status !== 'handled' && event.status !== 'ignored') continue;
        // Replaying must not silently pass over a step that fails now: say which event.
        const out = await runCycle(replaying, state, runner.manager, noBus, event, event.events).catch(
          (error: unknown) => {
            const failure = error instanceof CycleFailure ? error.failure : undefined;
            throw new EventStoreUsageError(
              `the replay failed at v${event.v} (${event.type})${failure ? ` in ${failure.step}${failure.model ? ` of model ${failure.model}` : ''}: ${failure.message}` : `: ${String(error)}`}; nothing was changed`,
              { cause: error },
            );
          },
        );
        if (tuning.flushEachEvent) await state.flush();
        if (out.known) done++;
        // Rebuilding every model: history takes the results and sub-events the code now makes, so
        // a later rebuild of some models (which reuses the stored sub-events) gives the same tables.
        if (rewrite) outcomes.push(finishedEvent(event.v, out.known ? 'handled' : 'ignored', out));
      }
      await queue.finish(runner.manager, outcomes.splice(0));
      await state.flush();
      // Rows of earlier pages are read again when needed: memory stays one page's worth.
      state.reset();
      options.onProgress?.({ done, total: handled, v: Math.min(handled, from + PAGE - 1) });
    }
    state.detach();
    await runner.commitTransaction();
    return { models: chosen.map((m) => m.name), events: done, version: handled };
  } catch (error) {
    state.detach();
    // On PostgreSQL a step that timed out may have a query in flight: the writer throws the connection away instead.
    const abandoned = timedOut(error) && queue.tables.dialect === 'postgres';
    if (!abandoned && runner.isTransactionActive) await runner.rollbackTransaction().catch(() => {});
    throw error;
  }
}

/**
 * The models a replay rebuilds: every one, or those `names` names, in that
 * order; throws `EventStoreUsageError` for a name no model has, or one named twice.
 */
export function pickModels(
  models: readonly ResolvedModel[],
  names: readonly string[] | undefined,
): ResolvedModel[] {
  if (names === undefined) return [...models];
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined)
    throw new EventStoreUsageError(`replay: model "${twice}" is named twice in models; name each once`);
  return names.map((name) => {
    const model = models.find((m) => m.name === name);
    if (model === undefined) {
      throw new EventStoreUsageError(
        `no model is named "${name}" (models: ${models.map((m) => m.name).join(', ')})`,
      );
    }
    return model;
  });
}
