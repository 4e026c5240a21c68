import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

// The README's first command runs this demo on the embedded default (SQLite in
// memory, in-process bus): it must keep showing what the README says it does.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('npm run demo on the embedded default shows records, handlers and the event-sourced view counts', async () => {
  const env = { ...process.env };
  for (const name of ['REDIS_URL', 'DATABASE_URL', 'REDIS_CLUSTER_NODES']) delete env[name];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'examples/records-service/demo.ts'],
    {
      cwd: ROOT,
      env,
      timeout: 60_000,
    },
  );
  const line = (start: string) =>
    stdout
      .split('\n')
      .find((l) => l.trimStart().startsWith(start))
      ?.trim();
  expect(line('records (committed):')).toBe('records (committed):   r1 published, r2 published');
  expect(line('record_views (event-sourced):')).toBe('record_views (event-sourced): r1=3, r2=1');
  expect(line('popular_record (sub-event):')).toBe('popular_record (sub-event): r1 since v3');
  expect(line('v3 RECORD.VIEWED r1:')).toBe('v3 RECORD.VIEWED r1: views=3, sub-event RECORD.BECAME_POPULAR');
  expect(line('notifications')).toBe(
    'notifications (async, idempotent): Your record r1 is published; Your record r2 is published; Your record r1 is popular',
  );
  expect(line('event store version:')).toBe('event store version:   v4, halted: no');
  expect(line('outbox rows left:')).toBe('outbox rows left:      0');
  expect(line('dead letters:')).toBe('dead letters:          0');
  expect(line('left behind:')).toBe('left behind: nothing (SQLite in memory, in-process bus)');
}, 70_000);
