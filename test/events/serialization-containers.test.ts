import { Type } from 'class-transformer';
import { describe, expect, it } from 'vitest';
import { EventRegistry } from '../../src/events/event-registry.js';
import { EventSerializer } from '../../src/events/event-serializer.js';
import { Event, EventType, InvalidEventFieldError } from '../../src/index.js';

class Author {
  name!: string;
}

@EventType('TAGS.SET')
class TagsSet extends Event {
  @Type(() => Set)
  tags!: Set<string>;

  @Type(() => Map)
  labels!: Map<string, string>;

  @Type(() => Author)
  authors!: Map<string, Author>;

  @Type(() => Map)
  nested?: Map<string, unknown>;

  // Declared `unknown`: its `design:type` is Object, not Set.
  @Type(() => Set)
  loose?: unknown;

  meta?: unknown;
}

const serializer = new EventSerializer(new EventRegistry([TagsSet]));

function tagsSet(more: Partial<TagsSet> = {}): TagsSet {
  return TagsSet.create({
    tags: new Set(['b', 'a']),
    labels: new Map([
      ['k', 'v'],
      ['n', 'w'],
    ]),
    authors: new Map([['ada', Object.assign(new Author(), { name: 'Ada' })]]),
    ...more,
  });
}

function roundTrip(event: TagsSet): TagsSet {
  return serializer.deserialize(serializer.serialize(event).payload) as TagsSet;
}

function refusal(event: TagsSet): InvalidEventFieldError {
  try {
    serializer.serialize(event);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidEventFieldError);
    return error as InvalidEventFieldError;
  }
  return expect.unreachable('expected an InvalidEventFieldError');
}

describe('a Map or a Set with class-transformer type metadata', () => {
  it('travels when it comes back the same: a declared Set, a @Type(() => Map) of strings, a Map of a @Type class', () => {
    const sent = tagsSet({
      nested: new Map<string, unknown>([
        ['n', 1],
        ['s', 'x'],
        ['z', null],
      ]),
    });
    const back = roundTrip(sent);
    expect(back.tags).toBeInstanceOf(Set);
    expect([...back.tags]).toEqual(['b', 'a']);
    expect(back.labels).toBeInstanceOf(Map);
    expect([...back.labels]).toEqual([...sent.labels]);
    expect(back.authors.get('ada')).toBeInstanceOf(Author);
    expect(back.authors.get('ada')?.name).toBe('Ada');
    expect([...(back.nested ?? [])]).toEqual([
      ['n', 1],
      ['s', 'x'],
      ['z', null],
    ]);
  });

  it('is refused, naming the field, when it would arrive changed', () => {
    // Not declared Set (no `design:type` Set): it would arrive as an array.
    expect(refusal(tagsSet({ loose: new Set(['x']) }))).toMatchObject({
      path: 'loose',
      message: expect.stringMatching(/is a Set that would not arrive as it was sent.*\[\.\.\.set\]/),
    });
    // No type metadata at all: a plain object, an array.
    expect(refusal(tagsSet({ meta: new Map([['a', 1]]) })).path).toBe('meta');
    expect(refusal(tagsSet({ meta: { list: [new Set(['x'])] } })).path).toBe('meta.list[0]');
    // Keys that are not strings arrive as strings.
    const numberKeys = new Map([[1, 'one']]) as unknown as Map<string, string>;
    expect(refusal(tagsSet({ labels: numberKeys })).message).toMatch(
      /is a Map that would not arrive.*fromEntries/,
    );
    // Declared Map with @Type(() => Map): object values would arrive as Maps.
    expect(refusal(tagsSet({ nested: new Map([['o', { x: 1 }]]) })).path).toBe('nested');
    // A Map key class-transformer would assign as a prototype.
    expect(refusal(tagsSet({ labels: new Map([['__proto__', 'x']]) })).path).toBe('labels');
  });

  it('still checks what a Map or a Set holds', () => {
    expect(refusal(tagsSet({ nested: new Map([['bad', Number.NaN]]) })).path).toBe('nested.bad');
    expect(refusal(tagsSet({ nested: new Map([['d', { constructor: 1 }]]) })).path).toBe(
      'nested.d.constructor',
    );
  });
});
