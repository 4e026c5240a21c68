import { expect, it } from 'vitest';
import { demoBed, demoLine, filesIn } from '../helpers/records-demo.js';

// The README's first command runs this demo on the embedded default (a SQLite
// file, the SQL transport): it must keep showing what the README says it does.
// Its file is in a temporary directory (DEMO_SQLITE_FILE), not the repository.
const bed = demoBed();

it('npm run demo on the embedded default shows records, handlers and the event-sourced view counts, and removes its file', async () => {
  const output = await bed.run(bed.file('demo.sqlite'));
  const line = (start: string) => demoLine(output, start);
  expect(line('commitbus demo on')).toBe(
    `commitbus demo on the embedded default (SQLite file ${bed.file('demo.sqlite')}, SQL transport)`,
  );
  expect(line('resuming:')).toBeUndefined();
  expect(line('records (committed):')).toBe('records (committed):   r1 published, r2 published');
  expect(line('metrics.count (sync):')).toBe(
    'metrics.count (sync):  RECORD.CREATE=3, RECORD.DELETE=1, RECORD.POPULAR=1, RECORD.PUBLISH=2',
  );
  expect(line('search.index (async):')).toBe('search.index (async):  r1 "Coral reefs", r2 "Glaciers"');
  expect(line('record_views (event-sourced):')).toBe('record_views (event-sourced): r1=3, r2=1');
  expect(line('popular_record (sub-event):')).toBe('popular_record (sub-event): r1 since v3');
  expect(line('v3 RECORD.VIEWED r1:')).toBe('v3 RECORD.VIEWED r1: views=3, sub-event RECORD.BECAME_POPULAR');
  expect(line('notifications')).toBe(
    'notifications (async): Your record r1 is popular; Your record r1 is published; Your record r2 is published',
  );
  expect(line('event store version:')).toBe('event store version:   v4, halted: no');
  expect(line('outbox rows left:')).toBe('outbox rows left:      0');
  expect(line('dead letters:')).toBe('dead letters:          0');
  expect(output.trimEnd().split('\n').at(-1)).toBe(
    `removed ${bed.file('demo.sqlite')} (and the files beside it): the run finished, so the next one starts fresh`,
  );
  expect(filesIn(bed.dir)).toEqual([]);
}, 70_000);
