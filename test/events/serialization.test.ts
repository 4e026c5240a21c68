import { Type } from 'class-transformer';
import { describe, expect, it } from 'vitest';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import {
  createEventBus,
  DuplicateEventTypeError,
  Event,
  EventType,
  InvalidEventFieldError,
  InvalidEventIdError,
  MalformedEventError,
  UnknownEventTypeError,
} from '../../src/index.js';
import { thrownBy } from '../helpers/thrown-by.js';

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
    [
      'missing id',
      JSON.stringify({ ...valid, event: { ...valid.event, id: undefined } }),
      /event id undefined is not/,
    ],
    ['numeric id', JSON.stringify({ ...valid, event: { ...valid.event, id: 42 } }), /event id 42 is not/],
    [
      'an id serialize would refuse',
      JSON.stringify({ ...valid, event: { ...valid.event, id: 'tenant:42' } }),
      /event id "tenant:42" is not 1 to 128 letters, digits, "_" or "-"/,
    ],
    [
      'an id of 129 characters',
      JSON.stringify({ ...valid, event: { ...valid.event, id: 'x'.repeat(129) } }),
      /event id "x{79}… is not/,
    ],
    [
      'missing createdAt',
      JSON.stringify({ ...valid, event: { id: 'x' } }),
      /"createdAt" undefined is not a date string/,
    ],
    [
      'bad createdAt',
      JSON.stringify({ ...valid, event: { ...valid.event, createdAt: 'soon' } }),
      /"createdAt" "soon" is not a date string/,
    ],
    [
      'numeric createdAt',
      JSON.stringify({ ...valid, event: { ...valid.event, createdAt: 0 } }),
      /"createdAt" 0 is not a date string/,
    ],
    [
      'a key @EventType would refuse',
      JSON.stringify({ ...valid, key: 'ORDER:LINE' }),
      /handling key "ORDER:LINE" is not dotted segments/,
    ],
    [
      'an empty order key',
      JSON.stringify({ ...valid, order: { key: '' } }),
      /"order" is not \{"key": a string of 1 to 512/,
    ],
    ['an order without a key', JSON.stringify({ ...valid, order: 'k' }), /"order" is not/],
    [
      'a fractional order position',
      JSON.stringify({ ...valid, order: { key: 'k', position: 1.5 } }),
      /"order" is not/,
    ],
  ])('rejects %s with MalformedEventError', (_name, payload, reason) => {
    const caught = thrownBy(() => serializer.deserialize(payload));
    expect(caught).toBeInstanceOf(MalformedEventError);
    expect(caught).toMatchObject({ code: 'COMMITBUS_MALFORMED_EVENT', payload });
    expect((caught as Error).message).toMatch(reason);
  });

  it("accepts the order an earlier version wrote into an ordered event's envelope, position included", () => {
    const event = OrderLineAdded.create({ sku: 'S1' });
    const { payload } = serializer.serialize(event);
    const positioned = `${payload.slice(0, -1)},"order":{"key":"order:1","position":7}}`;
    expect(serializer.deserialize(positioned)).toStrictEqual(event);
  });

  it('keeps the JSON parser error as cause', () => {
    expect((thrownBy(() => serializer.deserialize('{')) as Error).cause).toBeInstanceOf(SyntaxError);
  });
});

describe('fields that would not survive the trip', () => {
  /** What serializing an OrderLineAdded with `props` throws. */
  function refusal(props: Record<string, unknown>): InvalidEventFieldError {
    const event = Object.assign(OrderLineAdded.create({ sku: 'S1', id: 'evt-1' }), props);
    const caught = thrownBy(() => serializer.serialize(event));
    expect(caught).toBeInstanceOf(InvalidEventFieldError);
    return caught as InvalidEventFieldError;
  }

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'an invalid createdAt',
      { createdAt: new Date('x') },
      'createdAt',
      /must be a valid Date, got an invalid Date: give a valid Date, or leave it out/,
    ],
    [
      'a createdAt left undefined',
      { createdAt: undefined },
      'createdAt',
      /must be a valid Date, got undefined/,
    ],
    [
      'a createdAt given as a string, which a decoder would have made a Date of',
      { createdAt: '2026-12-02T10:00:00Z' },
      'createdAt',
      /must be a valid Date, got "2026-12-02T10:00:00Z"/,
    ],
    [
      'a createdAt given as a number',
      { createdAt: 1_764_000_000_000 },
      'createdAt',
      /must be a valid Date, got number/,
    ],
    ['NaN', { total: Number.NaN }, 'total', /is NaN, which JSON sends as null: give a finite number/],
    [
      'Infinity deep down',
      { lines: [{ price: 1 }, { price: Number.POSITIVE_INFINITY }] },
      'lines[1].price',
      /is Infinity, which JSON sends as null/,
    ],
    ['-Infinity', { m: { 'unit price': Number.NEGATIVE_INFINITY } }, 'm["unit price"]', /is -Infinity/],
    [
      'an invalid Date',
      { dueAt: [new Date('2024-01-01'), new Date('soon')] },
      'dueAt[1]',
      /is an invalid Date .* JSON sends as null: give a valid Date/,
    ],
    [
      'a BigInt',
      { amount: { cents: 10n } },
      'amount.cents',
      /is a BigInt, which JSON cannot encode: send it as a string/,
    ],
    [
      'undefined in an array',
      { tags: ['a', undefined] },
      'tags[1]',
      /is undefined in an array, which JSON sends as null: remove it, or use null/,
    ],
    ['a symbol', { meta: { kind: Symbol('k') } }, 'meta.kind', /is a symbol, which JSON drops/],
    ['a function in an array', { steps: [() => 1] }, 'steps[0]', /is a function, which JSON sends as null/],
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    ['a hole in an array', { meta: { tags: ['a', , 'c'] } }, 'meta.tags[1]', /is a hole in a sparse array/],
    [
      'nesting past 1000 levels',
      { tree: nested(1_001) },
      'tree',
      /nests objects or arrays more than 1000 levels deep/,
    ],
  ])('refuses %s, naming the event, the field and what to do', (_name, props, path, problem) => {
    const error = refusal(props);
    expect(error).toMatchObject({
      code: 'COMMITBUS_INVALID_EVENT_FIELD',
      handlingKey: 'ORDER.LINE.ADD',
      eventId: 'evt-1',
      path,
    });
    expect(error.message).toMatch(
      new RegExp(
        `^event ORDER\\.LINE\\.ADD evt-1 cannot be sent: field ${path.replace(/[[\]."]/g, '\\$&')} `,
      ),
    );
    expect(error.message).toMatch(problem);
  });

  it('carries 1000 levels of nesting, and refuses 20000 with an InvalidEventFieldError', () => {
    const event = OrderLineAdded.create({ sku: 'S1' });
    Object.assign(event, { tree: nested(1_000) });
    expect(() => serializer.deserialize(serializer.serialize(event).payload)).not.toThrow();
    expect(refusal({ tree: nested(20_000) }).path).toBe('tree');
  });

  it('refuses a cycle, naming where it closes, with the stack overflow as cause', () => {
    const node: { name: string; parent?: unknown } = { name: 'root' };
    const tree = { node, children: [{ name: 'leaf', up: node }] };
    node.parent = tree;
    const error = refusal({ tree });
    expect(error.path).toBe('tree.node.parent');
    expect(error.message).toMatch(
      /refers back to tree, a cycle JSON cannot encode: send the id of the object/,
    );
    expect(error.cause).toBeInstanceOf(RangeError);
    const self = OrderLineAdded.create({ sku: 'S1' });
    Object.assign(self, { me: self });
    expect(thrownBy(() => serializer.serialize(self))).toMatchObject({
      path: 'me',
      message: expect.stringMatching(/field me refers back to the event itself/),
    });
  });

  it('lets -0, null, nested Dates, and undefined object fields through, as JSON carries them', () => {
    const event = OrderPlaced.create({
      ...order(),
      total: -0,
      coupon: null,
      label: undefined as unknown as string,
    });
    const back = serializer.deserialize(serializer.serialize(event).payload) as OrderPlaced;
    expect(back.total).toBe(0);
    expect(back.coupon).toBeNull();
    expect(back.label).toBeUndefined();
    expect(back.shipTo.since).toEqual(event.shipTo.since);
  });

  it('refuses at bus.publish, before anything is sent', async () => {
    const bus = createEventBus({ events: [OrderPlaced, OrderLineAdded] });
    const bad = OrderLineAdded.create({ sku: 'S1', createdAt: new Date('x') });
    await expect(bus.publish([OrderLineAdded.create({ sku: 'ok' }), bad])).rejects.toThrow(
      InvalidEventFieldError,
    );
    expect(await bus.backlog()).toBe(0);
    await bus.close();
  });
});

/** `levels` objects, each the `next` of the one before. */
function nested(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node = root;
  for (let i = 1; i < levels; i++) {
    const inner: Record<string, unknown> = {};
    node.next = inner;
    node = inner;
  }
  return root;
}
