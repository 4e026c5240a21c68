// How far an earlier run on the SQLite file got: the steps it did (the rows
// of `demo_steps`), whether it finished, and the work it committed that no
// handler or model has handled yet. Only the embedded default resumes: on
// Redis + PostgreSQL the demo removes what an earlier run left and starts over.
import type { DataSource } from 'typeorm';
import type { App } from './app.js';
import { DEMO_STEPS } from './demo-steps.js';
import { DemoStepDone } from './entities.js';

/** The `demo_steps` row of a run that printed its summary: the next run starts fresh. */
const FINISHED = 'finished';

/** What the file holds of an earlier run. */
export interface DemoProgress {
  /** The steps done. */
  readonly done: ReadonlySet<string>;
  /** Whether that run finished (and was stopped while removing its file). */
  readonly finished: boolean;
}

/** Committed work not handled yet. */
export interface UnhandledWork {
  /** Deliveries on the bus: events waiting in the log and in their lanes, handler jobs not finished. */
  readonly bus: number;
  /** Events queued in the event store and not handled by its writer. */
  readonly store: number;
}

/** Reads the `demo_steps` rows. */
export async function readProgress(dataSource: DataSource): Promise<DemoProgress> {
  const rows = await dataSource.getRepository(DemoStepDone).find();
  const done = new Set(rows.map((row) => row.name));
  return { done, finished: done.delete(FINISHED) };
}

/** Records that the run finished, before its file is removed. */
export async function markFinished(app: App): Promise<void> {
  await app.service.unitOfWorks.run((uow) => uow.manager.insert(DemoStepDone, { name: FINISHED }));
}

/** Reads what is committed and not handled (before the worker and the writer start). */
export async function unhandledWork({ bus, views }: App): Promise<UnhandledWork> {
  const { backlog, jobs } = await bus.status();
  const version = await views.getVersion();
  const queued = (await views.history(version + 1, version + DEMO_STEPS.length)).filter(
    (event) => event.status === 'queued',
  );
  return {
    bus: backlog.events + backlog.ordered + backlog.delayed + jobs.waiting + jobs.running + jobs.retrying,
    store: queued.length,
  };
}

/** The line a resumed run starts with. */
export function resumeLine(progress: DemoProgress, work: UnhandledWork): string {
  const done = DEMO_STEPS.filter((step) => progress.done.has(step.name)).map((step) => step.name);
  const steps = `${done.length} of ${DEMO_STEPS.length} steps were done${done.length > 0 ? ` (${done.join(', ')})` : ''}`;
  const bus = `${work.bus} bus ${work.bus === 1 ? 'delivery' : 'deliveries'}`;
  const store = `${work.store} event-store ${work.store === 1 ? 'event' : 'events'}`;
  return `resuming: ${steps}; ${bus} and ${store} committed before the kill are handled now\n`;
}
