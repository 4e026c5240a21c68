// BullMQ refuses custom job ids that contain ":" or read as an integer.
const SAFE = /^[A-Za-z0-9_.-]+$/;
const INTEGER_LIKE = /^-?[0-9]+$/;

/**
 * The BullMQ job id for one of commitbus's job ids: the id itself when BullMQ
 * takes it as it is (every id commitbus builds from a valid event), else the
 * id with each character outside `[A-Za-z0-9_.-]` (and the first character of
 * an integer-like id) written as `%` and its four hex digits. Stable, so
 * adding the same job twice still adds it once; one-to-one, since an escaped
 * id always holds a `%` and a kept one never does.
 */
export function bullmqJobId(id: string): string {
  if (SAFE.test(id) && !INTEGER_LIKE.test(id)) return id;
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const char = id.charAt(i);
    out += (i === 0 && INTEGER_LIKE.test(id)) || !SAFE.test(char) ? escapeUnit(id.charCodeAt(i)) : char;
  }
  return out;
}

function escapeUnit(code: number): string {
  return `%${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
