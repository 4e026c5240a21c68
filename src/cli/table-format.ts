/** The narrowest a column is cut to when a table must fit a width. */
const MIN_COLUMN = 3;

/**
 * A table as text: a header row and rows of cells, in a box, one line per row.
 * With `width`, the widest column is cut (its cells end in `…`) until the
 * table fits that many characters, or every column is down to
 * {@link MIN_COLUMN}. Line breaks in a cell show as `↵`, other control characters
 * as symbols (ESC `␛`), so a cell cannot drive the terminal. Linear in the cells:
 * 10,000 rows take milliseconds.
 */
export function formatTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  width?: number,
): string {
  const clean = (row: readonly string[]) => head.map((_, i) => oneLine(row[i] ?? ''));
  const header = clean(head);
  const body = rows.map(clean);
  const widths = header.map((h) => h.length);
  for (const row of body) {
    for (let i = 0; i < row.length; i++) widths[i] = Math.max(widths[i] ?? 0, (row[i] ?? '').length);
  }
  if (width !== undefined) narrowToFit(widths, width);
  const rule = (left: string, mid: string, right: string) =>
    `${left}${widths.map((w) => '─'.repeat(w + 2)).join(mid)}${right}`;
  const line = (row: readonly string[]) =>
    `│${row.map((text, i) => ` ${pad(text, widths[i] ?? 0)} `).join('│')}│`;
  return [
    rule('┌', '┬', '┐'),
    line(header),
    rule('├', '┼', '┤'),
    ...body.map(line),
    rule('└', '┴', '┘'),
  ].join('\n');
}

/** Narrows the widest column, a character at a time, until the table is at most `width` wide. */
function narrowToFit(widths: number[], width: number): void {
  // Each column takes its width, two spaces of padding and one border; the row one more border.
  let excess = widths.reduce((sum, w) => sum + w + 3, 1) - width;
  while (excess > 0) {
    let widest = 0;
    for (let i = 1; i < widths.length; i++) if ((widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    const w = widths[widest] ?? 0;
    if (w <= MIN_COLUMN) return;
    // Down to the next widest column at once (never below the minimum), then one at a time.
    const next = Math.max(MIN_COLUMN, ...widths.filter((_, i) => i !== widest));
    const cut = Math.min(excess, Math.max(1, w - next));
    widths[widest] = w - cut;
    excess -= cut;
  }
}

function pad(text: string, width: number): string {
  if (text.length > width) return `${text.slice(0, Math.max(0, width - 1))}…`;
  return text + ' '.repeat(width - text.length);
}

// C0 controls and DEL as their Unicode control pictures (ESC `␛`), C1 controls and bidi overrides as `�`.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function oneLine(text: string): string {
  return text.replace(/\r?\n|\r/g, '↵').replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? '␡' : '\ufffd';
  });
}
