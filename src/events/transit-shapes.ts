/**
 * Object keys class-transformer cannot carry as they are (for a Map or a Set,
 * see `transit-containers.ts`):
 *
 * - an own `constructor` key: class-transformer reads `value.constructor` as the
 *   object's class, and throws a `TypeError` on anything else;
 * - an own `__proto__` key (from `JSON.parse` or `Object.defineProperty`): dropped on
 *   the way out, and on the way in it would be assigned as a prototype.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['constructor', '__proto__']);

/** What is wrong with an own key of event data, or `undefined` for a key that travels as it is. */
export function reservedKeyProblem(key: string): string | undefined {
  if (!RESERVED_KEYS.has(key)) return undefined;
  return `is a key named "${key}", which class-transformer cannot carry (it reads the key as the object's ${
    key === 'constructor' ? 'class' : 'prototype'
  }): rename the key, or send the entries as an array of [key, value] pairs`;
}

/**
 * The path of the first own `constructor` or `__proto__` key in parsed JSON, or
 * `undefined`. Used on the way in, so that a payload written by another publisher
 * is a malformed event rather than a `TypeError` or a changed prototype. Walks
 * only when the text could hold such a key (spelled out or escaped).
 */
export function reservedKeyIn(json: string, parsed: unknown): string | undefined {
  if (!json.includes('constructor"') && !json.includes('__proto__"') && !json.includes('\\u')) {
    return undefined;
  }
  const walk = (value: unknown, path: string): string | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [`[${i}]`, v])
      : Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]]);
    for (const [step, inner] of entries) {
      const at = step.startsWith('[') ? `${path}${step}` : `${path}.${step}`;
      if (!Array.isArray(value) && RESERVED_KEYS.has(step)) return at;
      const found = walk(inner, at);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  try {
    return walk(parsed, 'event');
  } catch (error) {
    // Nesting deeper than the stack: class-transformer cannot decode it either, and says so.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
