import { instanceToPlain } from 'class-transformer';
import { InvalidEventFieldError } from './errors/invalid-event-field.error.js';
import type { Event } from './event.js';
import { containerChangeIn } from './transit-containers.js';
import { reservedKeyProblem } from './transit-shapes.js';

type Path = (string | number)[];

/** A field JSON would change or refuse: where it is (innermost first) and what is wrong. */
interface Flaw {
  readonly reversedPath: Path;
  readonly problem: string;
}

const GIVE_DATA = 'send plain data (strings, finite numbers, booleans, null, arrays, objects, Dates)';

/**
 * The plain form of an event (class-transformer's `instanceToPlain`), checked
 * to come back the same from JSON on every worker. Throws
 * {@link InvalidEventFieldError} naming the first field that would not: a
 * `createdAt` that is not a valid Date, NaN or ±Infinity (JSON sends null), an
 * invalid Date (null), a BigInt (JSON throws), undefined, a function or a
 * symbol in an array (null) or as a value (dropped), a cycle, a hole in an
 * array (class-transformer compacts it), nesting past 1000 levels, an own
 * `constructor` or `__proto__` key (see `transit-shapes.ts`), a Map or a Set
 * that would not come back the same (see `transit-containers.ts`). `-0` is
 * let through (it arrives as 0), and so are objects with their own `toJSON`.
 *
 * One walk over the event for holes and depth, one over the plain form, each
 * allocating next to nothing unless a field is wrong: they run on every
 * publish. Only an event holding a Map or a Set is also decoded once, to
 * compare them with what a worker would get.
 */
export function toTransitPlain(event: Event): Record<string, unknown> {
  // class-transformer drops holes without a trace, so they are looked for in the event itself.
  const seen: ShapeSeen = { containers: false };
  const shape = shapeFlawOf(event, seen);
  if (shape !== undefined) throw fieldError(event, shape.reversedPath.reverse(), shape.problem);
  let plain: Record<string, unknown>;
  try {
    plain = instanceToPlain(event) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // class-transformer recurses into a cycle until the stack runs out.
    const cycle = findCycleWithin(event);
    if (cycle === undefined) throw tooDeepError(event, error);
    throw fieldError(
      event,
      cycle.path,
      `refers back to ${cycle.target}, a cycle JSON cannot encode: send the id of the object instead of the object`,
      error,
    );
  }
  // The event's own field: class-transformer's @Type(() => Date) would turn a string or a number into a Date.
  const createdAt: unknown = event.createdAt;
  if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) {
    const got = createdAt instanceof Date ? 'an invalid Date' : describe(createdAt);
    throw fieldError(
      event,
      ['createdAt'],
      `must be a valid Date, got ${got}: give a valid Date, or leave it out to get the time of creation`,
    );
  }
  for (const key of Object.keys(plain)) {
    const flaw = flawOf(plain[key], false);
    if (flaw !== undefined) throw fieldError(event, [...flaw.reversedPath, key].reverse(), flaw.problem);
  }
  if (seen.containers) {
    const change = containerChangeIn(event, plain);
    if (change !== undefined) throw fieldError(event, change.path, change.problem);
  }
  return plain;
}

function flawOf(value: unknown, inArray: boolean): Flaw | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value)
        ? undefined
        : flaw(`is ${value}, which JSON sends as null: give a finite number, or null for "no value"`);
    case 'object':
      return value === null ? undefined : flawOfObject(value);
    case 'undefined':
      return inArray
        ? flaw('is undefined in an array, which JSON sends as null: remove it, or use null')
        : undefined;
    case 'bigint':
      return flaw(
        'is a BigInt, which JSON cannot encode: send it as a string, or as a number if it is small enough',
      );
    default:
      // function, symbol
      return flaw(`is a ${typeof value}, which JSON ${inArray ? 'sends as null' : 'drops'}: ${GIVE_DATA}`);
  }
}

function flawOfObject(value: object): Flaw | undefined {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime())
      ? flaw(
          'is an invalid Date (made from something that is not a date), which JSON sends as null: give a valid Date',
        )
      : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = flawOf(value[i], true);
      if (inner !== undefined) return within(inner, i);
    }
    return undefined;
  }
  // JSON sends what toJSON returns (a Buffer, a decimal type): its author decided.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const inner = flawOf(record[key], false);
    if (inner !== undefined) return within(inner, key);
  }
  return undefined;
}

function flaw(problem: string): Flaw {
  return { reversedPath: [], problem };
}

function within(inner: Flaw, step: string | number): Flaw {
  inner.reversedPath.push(step);
  return inner;
}

/**
 * Data nested deeper than this is refused: class-transformer recurses once per
 * level and runs out of stack a few thousand levels down.
 */
const MAX_NESTING = 1_000;

/** A {@link Flaw} that also keeps the objects along its path (innermost first). */
interface ShapeFlaw extends Flaw {
  readonly reversedChain: unknown[];
  readonly tooDeep: boolean;
}

/** What the shape walk saw besides flaws: a Map or a Set, checked once the plain form is known. */
interface ShapeSeen {
  containers: boolean;
}

/**
 * A hole in an array (class-transformer compacts `[, , 'c']` to `['c']`), a key
 * it cannot carry (`transit-shapes.ts`), or nesting past
 * {@link MAX_NESTING}, in the event's own fields (a Map's values and a Set's
 * items included; `seen.containers` is set when there is a Map or a Set). `undefined`
 * when there is neither, or when the nesting is a cycle, which
 * {@link toTransitPlain} reports as such. Allocates nothing unless it finds one.
 */
function shapeFlawOf(event: Event, seen: ShapeSeen): Flaw | undefined {
  let found: ShapeFlaw | undefined;
  try {
    found = shapeFlawWithin(event, 0, seen);
  } catch (error) {
    // Called from deep in the stack already: instanceToPlain will overflow too and be reported.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  if (found === undefined || !found.tooDeep) return found;
  // The objects enclosing the deepest one, the event included: one of them twice is a cycle.
  if (new Set(found.reversedChain).size < found.reversedChain.length) return undefined;
  // Name the field, not a path a thousand steps long.
  const field = found.reversedPath.at(-1) ?? '';
  return {
    reversedPath: [field],
    problem: `nests objects or arrays more than ${MAX_NESTING} levels deep, which commitbus does not send: flatten it, or send ids instead of nested objects`,
  };
}

function shapeFlawWithin(value: object, depth: number, seen: ShapeSeen): ShapeFlaw | undefined {
  if (depth > MAX_NESTING) return { reversedPath: [], reversedChain: [], tooDeep: true, problem: '' };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) {
        return shapeFlaw(
          [i],
          'is a hole in a sparse array (nothing was ever put there), which would be dropped, moving every later item: fill it, with null for "no value"',
        );
      }
      const inner = nestedShapeFlaw(value[i], depth, seen);
      if (inner !== undefined) return withinShape(inner, i, value);
    }
    return undefined;
  }
  if (value instanceof Map || value instanceof Set) {
    seen.containers = true;
    let i = 0;
    for (const [key, item] of value.entries()) {
      const inner = nestedShapeFlaw(item, depth, seen);
      if (inner !== undefined) return withinShape(inner, value instanceof Map ? String(key) : i, value);
      i++;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const keyProblem = reservedKeyProblem(key);
    if (keyProblem !== undefined) return shapeFlaw([key], keyProblem);
    const inner = nestedShapeFlaw(record[key], depth, seen);
    if (inner !== undefined) return withinShape(inner, key, value);
  }
  return undefined;
}

function shapeFlaw(reversedPath: Path, problem: string): ShapeFlaw {
  return { reversedPath, reversedChain: [], tooDeep: false, problem };
}

function nestedShapeFlaw(value: unknown, depth: number, seen: ShapeSeen): ShapeFlaw | undefined {
  if (typeof value !== 'object' || value === null || value instanceof Date || ArrayBuffer.isView(value)) {
    return undefined;
  }
  return shapeFlawWithin(value, depth + 1, seen);
}

function withinShape(inner: ShapeFlaw, step: string | number, parent: object): ShapeFlaw {
  inner.reversedPath.push(step);
  if (inner.tooDeep) inner.reversedChain.push(parent);
  return inner;
}

/** Nesting class-transformer could not follow, when {@link shapeFlawOf} could not tell which field holds it. */
function tooDeepError(event: Event, cause: unknown): InvalidEventFieldError {
  return new InvalidEventFieldError(
    event.handlingKey,
    String(event.id),
    '(unknown)',
    'nests objects or arrays deeper than the stack can follow: flatten it, or send ids instead of nested objects',
    { cause },
  );
}

/** {@link findCycle}, or `undefined` when the data is too deep to walk. */
function findCycleWithin(event: Event): { path: Path; target: string } | undefined {
  try {
    return findCycle(event);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The first reference back to an enclosing object, found walking the event's own fields. */
function findCycle(event: Event): { path: Path; target: string } | undefined {
  const open = new Map<object, Path>();
  const walk = (value: unknown, path: Path): { path: Path; target: string } | undefined => {
    if (typeof value !== 'object' || value === null || value instanceof Date) return undefined;
    const enclosing = open.get(value);
    if (enclosing !== undefined) {
      return { path, target: enclosing.length === 0 ? 'the event itself' : formatPath(enclosing) };
    }
    open.set(value, path);
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (const [step, inner] of entries) {
      const found = walk(inner, [...path, step]);
      if (found !== undefined) return found;
    }
    open.delete(value);
    return undefined;
  };
  return walk(event, []);
}

function fieldError(event: Event, path: Path, problem: string, cause?: unknown): InvalidEventFieldError {
  return new InvalidEventFieldError(
    event.handlingKey,
    String(event.id),
    formatPath(path),
    problem,
    cause === undefined ? undefined : { cause },
  );
}

/** `lines[2].price`, `meta["a b"]`. */
function formatPath(path: Path): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(step)) out += out === '' ? step : `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}
