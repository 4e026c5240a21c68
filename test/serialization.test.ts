import { Type } from 'class-transformer';
import { describe, expect, it } from 'vitest';
import {
  createEventBus,
  DuplicateEventTypeError,
  Event,
  EventRegistry,
  EventSerializer,
  EventType,
  InvalidEventIdError,
  InvalidHandlingKeyError,
  MalformedEventError,
  MissingEventTypeError,
  UnknownEventTypeError,
} from '../src/index.js';

class Address {
  street!: string;
  @Type(() => Date)
  since!: Date;
}

@EventType('ORDER.PLACE')
class OrderPlaced extends Event {
  orderId!: string;
  total!: number;
  paid!: boolean;
  coupon!: string | null;
  /** Looks like a date but has no `@Type`: must stay a string. */
  label!: string;
  @Type(() => Date)
  dueAt!: Date;
  @Type(() => Address)
  shipTo!: Address;
  tags!: string[];
  @Type(() => Date)
  reminders!: Date[];
  @Type(() => Address)
  previousAddresses!: Address[];
}

@EventType('ORDER.LINE.ADD')
class OrderLineAdded extends Event {
  sku!: string;
}

const serializer = new EventSerializer(new EventRegistry([OrderPlaced, OrderLineAdded]));

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return expect.unreachable('expected a throw');
}

function address(street: string, since: string): Address {
  return Object.assign(new Address(), { street, since: new Date(since) });
}

function order(): OrderPlaced {
  return OrderPlaced.create({
    orderId: 'o-1',
    total: -12.75,
    paid: false,
    coupon: null,
    label: '2024-01-01T00:00:00.000Z',
    dueAt: new Date('2030-05-06T07:08:09.010Z'),
    shipTo: address('1 Main St', '2020-01-01T00:00:00.000Z'),
    tags: ['gift', 'express', ''],
    reminders: [new Date('2030-05-01T00:00:00.000Z'), new Date('2030-05-05T00:00:00.000Z')],
    previousAddresses: [address('2 Side St', '2010-02-03T04:05:06.007Z')],
    context: { userId: 'u-1', requestId: 'req-9', ip: '10.0.0.1', retries: 2, admin: true, tenant: null },
  });
}

describe('EventSerializer round trip', () => {
  it('restores the class, every field type, id, createdAt and context', () => {
    const event = order();
    const serialized = serializer.serialize(event);
    expect(serialized).toMatchObject({ id: event.id, key: 'ORDER.PLACE' });
    const back = serializer.deserialize(serialized.payload) as OrderPlaced;
    expect(back).toBeInstanceOf(OrderPlaced);
    expect(back).toStrictEqual(event);
    expect(back.id).toBe(event.id);
    expect(back.createdAt).toBeInstanceOf(Date);
    expect(back.createdAt.getTime()).toBe(event.createdAt.getTime());
    expect(back.dueAt).toBeInstanceOf(Date);
    expect(back.shipTo).toBeInstanceOf(Address);
    expect(back.shipTo.since).toBeInstanceOf(Date);
    expect(back.reminders.every((d) => d instanceof Date)).toBe(true);
    expect(back.previousAddresses[0]).toBeInstanceOf(Address);
    expect(back.previousAddresses[0]?.since.toISOString()).toBe('2010-02-03T04:05:06.007Z');
    expect(back.label).toBe('2024-01-01T00:00:00.000Z');
    expect(back.coupon).toBeNull();
    expect(back.context).toEqual(event.context);
  });

  it('keeps an id and createdAt given to create()', () => {
    const createdAt = new Date('2001-02-03T04:05:06.789Z');
    const event = OrderLineAdded.create({ sku: 'S1', id: 'fixed-id', createdAt });
    const back = serializer.deserialize(serializer.serialize(event).payload);
    expect(back.id).toBe('fixed-id');
    expect(back.createdAt).toEqual(createdAt);
  });

  it('refuses ids that cannot become queue job ids, saying what is allowed', () => {
    for (const id of ['tenant:42', '', 'a b', 'x'.repeat(129)]) {
      const event = OrderLineAdded.create({ sku: 'S1', id });
      expect(() => serializer.serialize(event)).toThrow(InvalidEventIdError);
    }
    expect(() => serializer.serialize(OrderLineAdded.create({ sku: 'S1', id: 'tenant:42' }))).toThrow(
      /invalid event id "tenant:42": use letters, digits/,
    );
  });

  it('writes a versioned envelope without the computed getters', () => {
    const event = OrderLineAdded.create({ sku: 'S1' });
    const envelope = JSON.parse(serializer.serialize(event).payload);
    expect(Object.keys(envelope)).toEqual(['v', 'key', 'event']);
    expect(envelope).toMatchObject({ v: 1, key: 'ORDER.LINE.ADD', event: { id: event.id, sku: 'S1' } });
    expect(envelope.event).not.toHaveProperty('handlingKey');
    expect(envelope.event).not.toHaveProperty('type');
    expect(envelope.event).not.toHaveProperty('action');
  });
});

describe('EventSerializer errors', () => {
  const valid = JSON.parse(serializer.serialize(OrderLineAdded.create({ sku: 'S1' })).payload);

  it('rejects an unknown key, naming it and the known keys', () => {
    const payload = JSON.stringify({ ...valid, key: 'ORDER.PLAC' });
    expect(() => serializer.deserialize(payload)).toThrow(UnknownEventTypeError);
    expect(() => serializer.deserialize(payload)).toThrow(
      'no event class registered for "ORDER.PLAC" (known: ORDER.LINE.ADD, ORDER.PLACE)',
    );
    expect(thrownBy(() => serializer.deserialize(payload))).toMatchObject({
      code: 'COMMITBUS_UNKNOWN_EVENT_TYPE',
      handlingKey: 'ORDER.PLAC',
      knownKeys: ['ORDER.LINE.ADD', 'ORDER.PLACE'],
    });
  });

  it('refuses to serialize an event of an unregistered class, even one claiming a registered key', () => {
    @EventType('ORDER.PLACE')
    class Impostor extends Event {}
    expect(() => serializer.serialize(Impostor.create({}))).toThrow(UnknownEventTypeError);
    expect(() => new EventRegistry([OrderPlaced, Impostor])).toThrow(DuplicateEventTypeError);
    expect(() => new EventRegistry([OrderPlaced, Impostor])).toThrow(/OrderPlaced.*Impostor/);
  });

  it.each([
    ['not JSON', 'not json {', /not valid JSON/],
    ['JSON null', 'null', /expected \{"v":1/],
    ['an array', '[1,2]', /expected \{"v":1/],
    ['no envelope', JSON.stringify(valid.event), /expected \{"v":1/],
    ['event is an array', JSON.stringify({ ...valid, event: [] }), /expected \{"v":1/],
    ['key is not a string', JSON.stringify({ ...valid, key: 7 }), /expected \{"v":1/],
    ['a future version', JSON.stringify({ ...valid, v: 2 }), /unsupported envelope version 2/],
    ['missing id', JSON.stringify({ ...valid, event: { ...valid.event, id: undefined } }), /no string "id"/],
    ['numeric id', JSON.stringify({ ...valid, event: { ...valid.event, id: 42 } }), /no string "id"/],
    ['missing createdAt', JSON.stringify({ ...valid, event: { id: 'x' } }), /"createdAt"/],
    [
      'bad createdAt',
      JSON.stringify({ ...valid, event: { ...valid.event, createdAt: 'soon' } }),
      /valid date/,
    ],
  ])('rejects %s with MalformedEventError', (_name, payload, reason) => {
    const caught = thrownBy(() => serializer.deserialize(payload));
    expect(caught).toBeInstanceOf(MalformedEventError);
    expect(caught).toMatchObject({ code: 'COMMITBUS_MALFORMED_EVENT', payload });
    expect((caught as Error).message).toMatch(reason);
  });

  it('keeps the JSON parser error as cause', () => {
    expect((thrownBy(() => serializer.deserialize('{')) as Error).cause).toBeInstanceOf(SyntaxError);
  });
});

describe('handling keys', () => {
  it('are readable from the class and the instance, with type and action', () => {
    expect(OrderPlaced.handlingKey).toBe('ORDER.PLACE');
    const line = OrderLineAdded.create({ sku: 'S1' });
    expect(line.handlingKey).toBe('ORDER.LINE.ADD');
    expect(line.type).toBe('ORDER');
    expect(line.action).toBe('ADD');
  });

  it.each(['', 'RECORD..CREATE', '.RECORD', 'RECORD.', 'RECORD CREATE', 'RECORD/CREATE', 'RÉCORD'])(
    '@EventType(%j) throws InvalidHandlingKeyError naming the key',
    (key) => {
      expect(() => EventType(key)).toThrow(InvalidHandlingKeyError);
      expect(() => EventType(key)).toThrow(`invalid handling key ${JSON.stringify(key)}`);
    },
  );

  it('a class without @EventType fails when registered, and subclasses do not inherit the key', () => {
    class Undecorated extends Event {}
    class SubOrder extends OrderPlaced {}
    expect(() => new EventRegistry([Undecorated])).toThrow(MissingEventTypeError);
    expect(() => new EventRegistry([Undecorated])).toThrow(/event class Undecorated has no handling key/);
    expect(() => createEventBus({ events: [SubOrder] })).toThrow(/event class SubOrder has no handling key/);
    expect(() => Undecorated.handlingKey).toThrow(MissingEventTypeError);
  });
});

describe('event ids', () => {
  it('are unique UUIDv7s that sort in creation order and carry the creation time', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2000 }, () => OrderLineAdded.create({ sku: 'S' }).id);
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of [ids[0], ids.at(-1)] as string[]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const millis = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(millis).toBeGreaterThanOrEqual(before);
      expect(millis).toBeLessThanOrEqual(after);
    }
  });
});
