import { afterAll, describe, expect, it } from 'vitest';
import {
  createEventBus,
  Event,
  EventType,
  isCommitbusError,
  NotAnEventError,
  SendEventOp,
  UnitOfWorkManager,
  withUnitOfWork,
} from '../../src/index.js';
import { openSqlite, outboxRows } from '../helpers/outbox.js';
import { thrownBy } from '../helpers/thrown-by.js';

@EventType('NOTE.ADD')
class NoteAdded extends Event {
  note!: string;
}

const opened: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
});

describe('something that is not an event', () => {
  it('given to bus.publish is a NotAnEventError naming what it got, and nothing is sent', async () => {
    const bus = createEventBus({ events: [NoteAdded] });
    opened.push(bus);
    const cases: [unknown, string][] = [
      [null, 'null'],
      [undefined, 'undefined'],
      [[NoteAdded.create({ note: 'ok' }), null], 'null'],
      [{ id: 'x', note: 'plain' }, 'a plain object'],
      [[new Date()], 'a Date'],
      ['NOTE.ADD', 'a string (NOTE.ADD)'],
    ];
    for (const [input, got] of cases) {
      const error = await bus.publish(input as Event).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotAnEventError);
      expect(isCommitbusError(error)).toBe(true);
      expect(error).toMatchObject({ code: 'COMMITBUS_NOT_AN_EVENT', where: 'bus.publish', got });
      expect((error as Error).message).toMatch(
        /^bus\.publish expects an event, an instance of a class extending Event/,
      );
    }
    expect(await bus.backlog()).toBe(0);
    await bus.publish([]);
    await bus.publish(NoteAdded.create({ note: 'ok' }));
    expect(await bus.backlog()).toBe(1);
  });

  it('given to new SendEventOp is a NotAnEventError at once; the unit of work rolls back and writes nothing', async () => {
    expect(thrownBy(() => new SendEventOp(null as unknown as Event))).toMatchObject({
      code: 'COMMITBUS_NOT_AN_EVENT',
      where: 'new SendEventOp',
      got: 'null',
    });
    const dataSource = await openSqlite([]);
    opened.push({ close: () => dataSource.destroy() });
    const bus = createEventBus({ events: [NoteAdded], dataSource });
    opened.push(bus);
    const uows = new UnitOfWorkManager({ dataSource, bus });
    const outcome = await withUnitOfWork(uows, async (uow) => {
      uow.register(new SendEventOp(NoteAdded.create({ note: 'before' })));
      uow.register(new SendEventOp(undefined as unknown as Event));
    }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(NotAnEventError);
    expect(outcome).toMatchObject({ got: 'undefined' });
    // An operation of your own that hands the unit of work something else fails the same way.
    const added = await withUnitOfWork(uows, async (uow) => {
      uow.events.add({ note: 'plain' } as unknown as Event);
    }).catch((error: unknown) => error);
    expect(added).toMatchObject({
      code: 'COMMITBUS_NOT_AN_EVENT',
      where: 'a unit of work',
      got: 'a plain object',
    });
    expect(await outboxRows(dataSource)).toEqual([]);
    expect(await bus.backlog()).toBe(0);
  });
});
