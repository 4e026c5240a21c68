/**
 * How long `dead-letters list` takes to format a table of 10,000 letters (the
 * issue asks under 2 s; cli-table3, used before, took 12.7 s here).
 * Run: `npx tsx bench/cli-table.ts`; prints one JSON line.
 */
import { formatTable } from '../src/cli/table-format.js';

const HEAD = ['id', 'kind', 'handler', 'handling key', 'reason', 'attempts', 'dead at', 'error'];
const rows = Array.from({ length: 10_000 }, (_, i) => [
  `0192d4c3-7a1b-7c2d-8e9f-${String(i).padStart(12, '0')}.announce`,
  'handler',
  'announce',
  'RECORD.PUBLISHED',
  'exhausted',
  '3',
  new Date(1_764_000_000_000 + i).toISOString(),
  `Error: the mail server refused the message for record ${i}`,
]);
const started = performance.now();
const text = formatTable(HEAD, rows, 160);
const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ rows: rows.length, chars: text.length, table_10k_ms: Math.round(ms) })}\n`,
);
