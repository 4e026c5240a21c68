import type { App } from './app.js';
import { DemoStepDone } from './entities.js';
import { POPULAR_AT } from './views.js';

/** Prints a line of the demo. */
export type Log = (line: string) => void;

/** What a step does once its unit of work committed. */
export type AfterCommit = () => Promise<void>;

/**
 * One step of the demo. A rerun after a kill skips the steps done, so none
 * is ever applied twice:
 * - `commits`: one unit of work, its `demo_steps` row written in it, so the
 *   step is done exactly when its rows (and the events it wrote, or the
 *   event it dispatched to the event store) committed;
 * - `rolls back`: its unit of work fails and nothing of it commits; it is
 *   marked done after, in a transaction of its own. Run again after a kill
 *   between the two, it fails again and changes nothing.
 */
export interface DemoStep {
  /** Its row in `demo_steps`. */
  readonly name: string;
  /** The line printed as it starts. */
  readonly title: string;
  /** Whether its unit of work commits or rolls back. */
  readonly outcome: 'commits' | 'rolls back';
  /**
   * What it does (in the step's unit of work when it commits); may give
   * back what to do once that committed.
   */
  run(app: App, log: Log): Promise<AfterCommit | undefined>;
}

const RECORDS = [
  ['r1', 'Coral reefs'],
  ['r2', 'Glaciers'],
  ['r3', 'Dunes'],
] as const;

/** The demo's steps, in order. */
export const DEMO_STEPS: readonly DemoStep[] = [
  ...RECORDS.map(
    ([recid, title]): DemoStep => ({
      name: `create ${recid}`,
      title: `create ${recid} (a unit of work: the record and its RECORD.CREATE commit together)`,
      outcome: 'commits',
      run: async ({ service }) => {
        await service.create(recid, title);
        return undefined;
      },
    }),
  ),
  ...(['r1', 'r2'] as const).map(
    (recid): DemoStep => ({
      name: `publish ${recid}`,
      title: `publish ${recid}`,
      outcome: 'commits',
      run: async ({ service }) => {
        await service.publish(recid);
        return undefined;
      },
    }),
  ),
  {
    name: 'delete r3',
    title: 'delete r3',
    outcome: 'commits',
    run: async ({ service }) => {
      await service.delete('r3');
      return undefined;
    },
  },
  {
    name: 'create r1 again',
    title: 'create r1 again: the insert fails, the transaction rolls back, nothing is published',
    outcome: 'rolls back',
    run: async ({ service }) => {
      await service.create('r1', 'Duplicate');
      return undefined;
    },
  },
  ...Array.from({ length: POPULAR_AT }, (_, i) =>
    viewStep(
      'r1',
      i + 1,
      i === 0
        ? 'view r1 (each view is a unit of work dispatching RECORD.VIEWED to the event store)'
        : `view r1 again${i + 1 === POPULAR_AT ? `: view ${POPULAR_AT} makes it popular` : ''}`,
    ),
  ),
  viewStep('r2', 1, 'view r2'),
  {
    name: 'view r3',
    title: 'view r3: it was deleted, so the unit of work fails and nothing is dispatched',
    outcome: 'rolls back',
    run: async ({ service }) => {
      await service.view('r3');
      return undefined;
    },
  },
];

/** The `nth` view of `recid`: once committed, waits for the event store's writer and prints what it did. */
function viewStep(recid: string, nth: number, title: string): DemoStep {
  return {
    name: `view ${recid} #${nth}`,
    title,
    outcome: 'commits',
    run: async ({ service }, log) => {
      const op = await service.view(recid);
      return async () => {
        const handled = await op.handled();
        const views = String(handled.result?.recordViews?.sav?.[0]?.views);
        const sub = handled.events.map((e) => `, sub-event ${e.type}`).join('');
        log(`  v${handled.v} RECORD.VIEWED ${recid}: views=${views}${sub}`);
      };
    },
  };
}

/** Runs the steps not in `done`, in order, marking each done as {@link DemoStep} says. */
export async function runDemoSteps(app: App, done: ReadonlySet<string>, log: Log): Promise<void> {
  const { unitOfWorks } = app.service;
  for (const step of DEMO_STEPS) {
    if (done.has(step.name)) continue;
    log(step.title);
    if (step.outcome === 'commits') {
      const afterCommit = await unitOfWorks.run(async (uow) => {
        const then = await step.run(app, log);
        await uow.manager.insert(DemoStepDone, { name: step.name });
        return then;
      });
      await afterCommit?.();
    } else {
      await step.run(app, log).then(
        () => log('  unexpected: it committed'),
        (error: Error) => log(`  rolled back: ${error.message.split('\n')[0]}`),
      );
      await unitOfWorks.run((uow) => uow.manager.insert(DemoStepDone, { name: step.name }));
    }
  }
}
