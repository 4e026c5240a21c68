/**
 * Turns the `?` placeholders the SQL transport writes its statements with
 * into PostgreSQL's `$1, $2, ...`. Statements never hold a `?` inside a
 * string literal or an identifier, so every `?` is a placeholder.
 */
export function toPostgresPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** `?, ?, ?` for `count` values (at least one). */
export function placeholders(count: number): string {
  return Array.from({ length: Math.max(1, count) }, () => '?').join(', ');
}
