/** A short description of a value for an error message: its kind, never its contents. */
export function describeValue(value: unknown): string {
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : typeof value;
}
