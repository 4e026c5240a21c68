import { formatTable } from './table-format.js';

/**
 * Writes the command's own output to stdout. Taken at load, so it still
 * reaches stdout while `--json` sends what the bus module writes there to stderr.
 */
const writeOut: (text: string) => boolean = process.stdout.write.bind(process.stdout);

/** Writes `value` as the one JSON document of a `--json` run. */
export function printJson(value: unknown): void {
  writeOut(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Writes a table: a header row and rows of cells, cut to fit the terminal
 * ({@link tableWidth}).
 */
export function printTable(head: readonly string[], rows: readonly (readonly unknown[])[]): void {
  writeOut(
    `${formatTable(
      head,
      rows.map((row) => row.map(cell)),
      tableWidth(),
    )}\n`,
  );
}

/**
 * The width tables are cut to: the terminal's columns when stdout is one,
 * else `COLUMNS` when set (a script that wants a width), else none (a pipe
 * gets every character).
 */
export function tableWidth(
  stdout: { readonly isTTY?: boolean; readonly columns?: number } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  if (stdout.isTTY === true && stdout.columns !== undefined && stdout.columns > 0) return stdout.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/**
 * The footer of a list: `100 of 10,000 dead letter(s) (oldest first; --limit
 * or --newest-first for others)`.
 */
export function listFooter(shown: number, total: number, noun: string, newestFirst: boolean): string {
  const order = newestFirst ? 'newest first' : 'oldest first';
  const more = shown < total ? `; --limit${newestFirst ? '' : ' or --newest-first'} for others` : '';
  return `${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${noun} (${order}${more})`;
}

/** Writes a line of text for people (never in `--json` runs). */
export function printLine(text: string): void {
  writeOut(`${text}\n`);
}

/** A duration in ms as people read it: `850ms`, `12s`, `5m 3s`, `2h 4m`, or `-`. */
export function formatAge(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1_000) return `${ms}ms`;
  const s = Math.floor(ms / 1_000);
  if (s < 60) return `${s}s`;
  if (s < 3_600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3_600)}h ${Math.floor((s % 3_600) / 60)}m`;
}

/** Cuts `text` to `max` characters, marking the cut. */
export function truncate(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}
