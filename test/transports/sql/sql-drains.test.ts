/**
 * `sqlTransport({ drains })`: a worker runs that many drains side by side,
 * so an event committed while one drain is held by a slow sync handler is
 * handled by another drain meanwhile; with one drain it waits its turn.
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

/** A sync handler holding event `slow` until released, recording the order of the runs. */
function holdingHandlers(order: string[], held: Promise<void>): EventHandlersConfig {
  return {
    'RECORD.CREATE': [
      [
        defineHandler<RecordCreated>('audit', async (e) => {
          order.push(`start:${e.recid}`);
          if (e.recid === 'slow') await held;
          order.push(`end:${e.recid}`);
        }),
        true,
      ],
    ],
  };
}

describe('drains per worker on PostgreSQL', () => {
  it.each([
    [3, ['start:slow', 'start:quick', 'end:quick', 'end:slow']],
    [1, ['start:slow', 'end:slow', 'start:quick', 'end:quick']],
  ])('with %i drains, an event behind a held batch runs in this order: %j', async (drains, expected) => {
    const order: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const config = fastConfig({ name: `drains${++n}`, outbox: { enabled: false } });
    const { bus } = await buses.start({
      events: [...TEST_EVENTS],
      handlers: holdingHandlers(order, held),
      config,
      transport: sqlTransport({ dataSource: databases.postgres, pollMs: 50, drains }),
    });
    await bus.publish(recordCreated('slow'));
    await waitFor('the slow event to start', () => order.includes('start:slow'));
    await bus.publish(recordCreated('quick'));
    if (drains > 1) {
      await waitFor('another drain to handle the quick event', () => order.includes('end:quick'));
    } else {
      // One drain: the quick event can only start once the slow one ends; wait a few polls to show it does not.
      await waitFor('the quick event to be published', async () => (await bus.status()).backlog.events >= 1);
    }
    release();
    await waitFor('both to finish', () => order.filter((s) => s.startsWith('end:')).length === 2);
    expect(order).toEqual(expected);
  });
});
