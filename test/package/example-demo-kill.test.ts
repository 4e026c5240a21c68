import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createApp } from '../../examples/records-service/app.js';
import { markFinished } from '../../examples/records-service/demo-progress.js';
import { DEMO_STEPS } from '../../examples/records-service/demo-steps.js';
import { demoBed, demoLine, filesIn, summaryLines } from '../helpers/records-demo.js';

// `npm run demo` on the embedded default keeps its work in a SQLite file: a
// run killed half-way (SIGKILL: no handler, no cleanup) is resumed by the
// next, which skips the steps done, handles what was committed and not
// handled, and ends as a run that was never stopped does.
const bed = demoBed();
let uninterrupted: Promise<string[]> | undefined;
/** The summary of a run that was not stopped (run once, by the first test that needs it). */
const expectedSummary = () => {
  uninterrupted ??= bed.run(bed.file('through.sqlite')).then(summaryLines);
  return uninterrupted;
};

const RESUMED =
  /^resuming: (\d+) of 12 steps were done \(([^)]*)\); \d+ bus deliver(?:y|ies) and \d+ event-store events? committed before the kill are handled now$/;

it.each([
  // Three records created, the fourth step (a publish) starting: events in lanes, handler jobs.
  { when: 'the first publish starts', printed: '\npublish r1\n', doneAtLeast: 3, file: 'publish.sqlite' },
  // Two views committed, the third (the one that makes r1 popular) starting: the event store's queue too.
  {
    when: 'the third view starts',
    printed: '\nview r1 again: view 3 makes it popular\n',
    doneAtLeast: 9,
    file: 'view.sqlite',
  },
])(
  'a demo killed as $when is resumed by the next run, which ends with the same summary and removes the file',
  async ({ printed, doneAtLeast, file: name }) => {
    const expected = await expectedSummary();
    expect(expected).toContain('dead letters:          0');

    const file = bed.file(name);
    const killed = bed.start(file);
    await killed.printed(printed);
    killed.process.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');
    expect(existsSync(file)).toBe(true);

    const rerun = await bed.run(file);
    const [, count, names] = RESUMED.exec(demoLine(rerun, 'resuming:') ?? '') ?? [];
    expect(Number(count)).toBeGreaterThanOrEqual(doneAtLeast);
    const done = new Set(names?.split(', '));
    expect(done.size).toBe(Number(count));
    // The steps done before the kill do not run again (a second publish would notify twice); the rest do, in order.
    const titles = rerun.split('\n').filter((line) => DEMO_STEPS.some((step) => step.title === line));
    expect(titles).toEqual(DEMO_STEPS.filter((step) => !done.has(step.name)).map((step) => step.title));
    expect(summaryLines(rerun)).toEqual(expected);
    expect(rerun.trimEnd().split('\n').at(-1)).toMatch(/the run finished, so the next one starts fresh$/);
    expect(filesIn(bed.dir).filter((left) => left.startsWith(name))).toEqual([]);
  },
  90_000,
);

it('a file whose run finished (it was stopped while removing it) starts a fresh run', async () => {
  const file = bed.file('finished.sqlite');
  const app = await createApp({ DEMO_SQLITE_FILE: file });
  await markFinished(app);
  await app.close();

  const output = await bed.run(file);
  expect(output.split('\n')[0]).toBe('found the file of a finished run: starting fresh');
  expect(demoLine(output, 'resuming:')).toBeUndefined();
  expect(summaryLines(output)).toEqual(await expectedSummary());
  expect(filesIn(bed.dir).filter((name) => name.startsWith('finished.'))).toEqual([]);
}, 60_000);
