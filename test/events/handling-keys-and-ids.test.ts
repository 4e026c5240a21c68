/**
 * Handling keys (read from the class and the instance, refused when
 * malformed or missing, not inherited) and event ids (UUIDv7, unique,
 * sorting in creation order).
 */
import { describe, expect, it } from 'vitest';
import { EventRegistry } from '../../src/events/event-registry.js';
import {
  createEventBus,
  Event,
  EventType,
  InvalidHandlingKeyError,
  MissingEventTypeError,
} from '../../src/index.js';

@EventType('ORDER.PLACE')
class OrderPlaced extends Event {
  orderId!: string;
}

@EventType('ORDER.LINE.ADD')
class OrderLineAdded extends Event {
  sku!: string;
}

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
