import { afterAll, describe, expect, it } from 'vitest';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import {
  createEventBus,
  Event,
  EventType,
  InvalidEventFieldError,
  MalformedEventError,
  SendEventOp,
  UnitOfWorkManager,
  withUnitOfWork,
} from '../../src/index.js';
import { openSqlite, outboxRows } from '../helpers/outbox.js';

@EventType('NOTE.ADD')
class NoteAdded extends Event {
  note!: string;
  meta?: unknown;
}

const serializer = new EventSerializer(new EventRegistry([NoteAdded]));

function withMeta(meta: unknown): NoteAdded {
  return NoteAdded.create({ note: 'n', meta });
}

function refusal(meta: unknown): InvalidEventFieldError {
  try {
    serializer.serialize(withMeta(meta));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidEventFieldError);
    return error as InvalidEventFieldError;
  }
  return expect.unreachable('expected an InvalidEventFieldError');
}

/** A valid `NOTE.ADD` envelope whose event JSON text is `eventJson` (its id and createdAt prepended). */
function payloadWith(eventJson: string): string {
  const head = `"id":"evt-1","createdAt":"${new Date().toISOString()}","note":"n"`;
  return `{"v":1,"key":"NOTE.ADD","event":{${head},${eventJson}}}`;
}

describe('keys and containers class-transformer cannot carry', () => {
  it('refuses an own "constructor" key with InvalidEventFieldError naming it, not a TypeError', () => {
    const error = refusal({ tags: { constructor: 'Ada', role: 'author' } });
    expect(error.path).toBe('meta.tags.constructor');
    expect(error.code).toBe('COMMITBUS_INVALID_EVENT_FIELD');
    expect(error.message).toMatch(
      /key named "constructor", which class-transformer cannot carry.*rename the key/,
    );
    expect(refusal([{ constructor: 1 }]).path).toBe('meta[0].constructor');
  });

  it('refuses an own "__proto__" key instead of dropping it', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"admin": true}, "kept": 1}');
    expect(Object.keys(parsed as object)).toEqual(['__proto__', 'kept']);
    const error = refusal({ parsed });
    expect(error.path).toBe('meta.parsed.__proto__');
    expect(error.message).toMatch(/key named "__proto__"/);
  });

  it('refuses a Map and a Set without type metadata instead of sending them as an object or an array', () => {
    expect(refusal(new Map([['a', 1]]))).toMatchObject({
      path: 'meta',
      message: expect.stringMatching(
        /is a Map that would not arrive as it was sent.*Object\.fromEntries\(map\)/,
      ),
    });
    expect(refusal({ list: [new Set(['x'])] }).path).toBe('meta.list[0]');
    expect(refusal({ list: [new Set(['x'])] }).message).toMatch(/is a Set.*\[\.\.\.set\]/);
  });

  it('still carries keys that only look like them, and the same data as entries', () => {
    const meta = { constructorName: 'Ada', proto: 1, entries: Object.entries({ a: 1 }), plain: { a: 1 } };
    const back = serializer.deserialize(serializer.serialize(withMeta(meta)).payload) as NoteAdded;
    expect(back.meta).toEqual(meta);
  });

  it('decodes a payload holding such a key (written by another publisher) as malformed, spelled out or escaped', () => {
    for (const json of [
      '"meta":{"a":[{"constructor":{"x":1}}]}',
      '"meta":{"\\u005f_proto__":{"admin":true}}',
    ]) {
      const decode = () => serializer.deserialize(payloadWith(json));
      expect(decode).toThrow(MalformedEventError);
      expect(decode).toThrow(
        /event\.meta\.(a\[0\]\.constructor|__proto__) is a key class-transformer cannot decode/,
      );
    }
    const top = payloadWith('"constructor":5');
    expect(() => serializer.deserialize(top)).toThrow(/event\.constructor is a key/);
    expect(serializer.deserialize(payloadWith('"meta":{"constructorish":1}'))).toBeInstanceOf(NoteAdded);
  });
});

describe('a unit of work with such an event', () => {
  const opened: { close(): Promise<unknown> }[] = [];
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
  });

  it('is refused at register with InvalidEventFieldError, rolls back and leaves no outbox row', async () => {
    const dataSource = await openSqlite([]);
    opened.push({ close: () => dataSource.destroy() });
    const bus = createEventBus({ events: [NoteAdded], dataSource });
    opened.push(bus);
    const uows = new UnitOfWorkManager({ dataSource, bus });
    const bad = withMeta({ constructor: 'x' });
    const outcome = await withUnitOfWork(uows, async (uow) => {
      uow.register(new SendEventOp(withMeta({ fine: true })));
      uow.register(new SendEventOp(bad));
    }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(InvalidEventFieldError);
    expect(outcome).toMatchObject({ path: 'meta.constructor', eventId: bad.id });
    expect(await outboxRows(dataSource)).toEqual([]);
    await expect(bus.publish(withMeta(new Map()))).rejects.toThrow(InvalidEventFieldError);
    expect(await bus.backlog()).toBe(0);
  });
});
