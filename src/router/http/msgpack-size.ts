/**
 * The size in bytes of a parsed JSON value packed as MessagePack the way
 * Ruby's msgpack gem packs it (what Routemaster measures an event's `data`
 * with): the smallest header for each map, array, string and integer
 * (fixmap, fixstr, fixint first), floats as float64, strings as UTF-8.
 * Counted, not packed. A JSON number written with a fraction of zero
 * (`1.0`) reaches us as an integer and is counted as one (a byte where Ruby
 * counts 9), so nothing Routemaster accepts is refused.
 */
export function msgpackSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'number') return numberSize(value);
  if (typeof value === 'string') {
    const bytes = Buffer.byteLength(value, 'utf8');
    return bytes + (bytes <= 31 ? 1 : bytes <= 0xff ? 2 : bytes <= 0xffff ? 3 : 5);
  }
  if (Array.isArray(value)) {
    let size = containerHeader(value.length);
    for (const item of value) size += msgpackSize(item);
    return size;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    let size = containerHeader(entries.length);
    for (const [key, item] of entries) size += msgpackSize(key) + msgpackSize(item);
    return size;
  }
  // Not a JSON value (undefined, a function): JSON.stringify leaves it out, so does this.
  return 0;
}

/** fixmap/fixarray up to 15 entries, then the 16- and 32-bit forms. */
function containerHeader(length: number): number {
  return length <= 15 ? 1 : length <= 0xffff ? 3 : 5;
}

function numberSize(n: number): number {
  if (!Number.isInteger(n)) return 9;
  if (n >= 0) {
    if (n <= 0x7f) return 1;
    if (n <= 0xff) return 2;
    if (n <= 0xffff) return 3;
    if (n <= 0xffffffff) return 5;
    // Past 64 bits Ruby's JSON gives a Bignum msgpack cannot pack: counted as the float it is here.
    return 9;
  }
  if (n >= -32) return 1;
  if (n >= -0x80) return 2;
  if (n >= -0x8000) return 3;
  if (n >= -0x80000000) return 5;
  return 9;
}
