/**
 * A handler job retried after a short backoff runs again when the backoff
 * ends, not at the worker's next poll: with a poll of a minute, the retry
 * still comes within the test's wait (its due time on the database's clock).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineHandler, type EventHandlersConfig } from '../../../src/index.js';
import { sqlTransport } from '../../../src/transports/sql/index.js';
import { Buses, fastConfig } from '../../helpers/buses.js';
import { type RecordCreated, recordCreated, TEST_EVENTS } from '../../helpers/events.js';
import { sqlTestDatabases } from '../../helpers/sql.js';
import { waitFor } from '../../helpers/wait-for.js';

const databases = sqlTestDatabases();
const buses = new Buses();
afterEach(() => buses.closeAll());

let n = 0;

describe.each(['postgres', 'sqlite'] as const)('a retry after a short backoff (%s)', (which) => {
  it('runs when the backoff ends, though the worker polls once a minute', async () => {
    const runs: number[] = [];
    const handlers: EventHandlersConfig = {
      'RECORD.CREATE': [
        [
          defineHandler<RecordCreated>('flaky', () => {
            runs.push(runs.length + 1);
            if (runs.length === 1) throw new Error('not yet');
          }),
          false,
        ],
      ],
    };
    const { bus } = await buses.start({
      events: [...TEST_EVENTS],
      handlers,
      config: fastConfig({
        name: `retrywake${which}${++n}`,
        outbox: { enabled: false },
        handlers: { attempts: 2, backoff: { type: 'fixed', delayMs: 150 } },
      }),
      transport: sqlTransport({ dataSource: databases[which], pollMs: 60_000 }),
    });
    await bus.publish(recordCreated('r1'));
    await waitFor('the retry to run and succeed', () => runs.length === 2, { timeoutMs: 10_000 });
    expect(runs).toEqual([1, 2]);
  });
});
