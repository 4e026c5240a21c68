import { expect } from 'vitest';
import type { EventHandlersConfig } from '../../src/index.js';
import {
  Owner,
  RecordCreated,
  RecordEmbargoed,
  RecordEvent,
  recordCreated,
  recordPublished,
} from './events.js';
import type { Recorder } from './recorder.js';

/** One event of each level of the `RECORD` hierarchy. */
export function hierarchyEvents() {
  return {
    root: RecordEvent.create({ recid: 'r1' }),
    created: recordCreated('r2'),
    published: recordPublished('r3'),
    embargoed: RecordEmbargoed.create({
      recid: 'r4',
      publishedAt: new Date('2024-05-01T10:00:00Z'),
      embargoUntil: new Date('2025-01-01T00:00:00Z'),
    }),
  };
}

/** Runs of {@link hierarchyHandlers} for {@link hierarchyEvents}, async `record.search` included. */
export const HIERARCHY_RUNS = 3 + 4 + 5 + 6;

/**
 * Sync handlers on every level of `RECORD.PUBLISH.EMBARGOED` (two per key where
 * order within a key matters) and one async handler between the sync ones of
 * `RECORD`. `decoded` receives what handlers saw of a `Date` and a nested class.
 */
export function hierarchyHandlers(rec: Recorder, decoded: string[]): EventHandlersConfig {
  return {
    RECORD: [
      [rec.handler('record.audit'), true],
      rec.handler('record.search'),
      [rec.handler('record.index'), true],
    ],
    'RECORD.CREATE': [
      [
        rec.handler<RecordCreated>('create.welcome', (e) => {
          decoded.push(`${e instanceof RecordCreated} ${e.owner instanceof Owner} ${e.owner.label()}`);
        }),
        true,
      ],
    ],
    'RECORD.PUBLISH': [
      [rec.handler('publish.validate'), true],
      [rec.handler('publish.notify'), true],
    ],
    'RECORD.PUBLISH.EMBARGOED': [
      [
        rec.handler<RecordEmbargoed>('embargo.schedule', (e) => {
          decoded.push(`${e.embargoUntil instanceof Date} ${e.embargoUntil.toISOString()}`);
        }),
        true,
      ],
    ],
  };
}

/** Asserts the exact order of the sync handlers per event, and that the async one ran once each. */
export function expectHierarchicalOrder(
  rec: Recorder,
  events: ReturnType<typeof hierarchyEvents>,
  decoded: readonly string[],
): void {
  const sync = ['record.audit', 'record.index', 'create.welcome', 'publish.validate', 'publish.notify'];
  sync.push('embargo.schedule');
  const root = ['record.audit', 'record.index'];
  expect(rec.order(events.root.id, sync)).toEqual(root);
  expect(rec.order(events.created.id, sync)).toEqual([...root, 'create.welcome']);
  expect(rec.order(events.published.id, sync)).toEqual([...root, 'publish.validate', 'publish.notify']);
  expect(rec.order(events.embargoed.id, sync)).toEqual([
    ...root,
    'publish.validate',
    'publish.notify',
    'embargo.schedule',
  ]);
  for (const event of Object.values(events)) expect(rec.count('record.search', event.id)).toBe(1);
  expect(rec.runs).toHaveLength(HIERARCHY_RUNS);
  expect([...decoded].sort()).toEqual(['true 2025-01-01T00:00:00.000Z', 'true true Ada <ada@example.org>']);
}
