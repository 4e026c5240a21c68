/** The CLI's tables: the box, cutting the widest column to a width, and the width a run uses. */
import { describe, expect, it } from 'vitest';
import { tableWidth } from '../../src/cli/output.js';
import { formatTable } from '../../src/cli/table-format.js';

describe('formatTable', () => {
  it('aligns every cell under its header in a box', () => {
    expect(
      formatTable(
        ['id', 'count'],
        [
          ['a', '12'],
          ['bbb', '3'],
        ],
      ),
    ).toBe(
      [
        '┌─────┬───────┐',
        '│ id  │ count │',
        '├─────┼───────┤',
        '│ a   │ 12    │',
        '│ bbb │ 3     │',
        '└─────┴───────┘',
      ].join('\n'),
    );
  });

  it('cuts the widest column with an ellipsis until the table fits the width', () => {
    const error = 'x'.repeat(200);
    const text = formatTable(['id', 'handler', 'error'], [['letter-1', 'announce', error]], 60);
    const lines = text.split('\n');
    for (const line of lines) expect(line.length).toBe(60);
    expect(lines[3]).toContain('letter-1');
    expect(lines[3]).toContain('announce');
    expect(lines[3]).toMatch(/x…/);
  });

  it('leaves a table that fits alone, and shows a line break in a cell as ↵', () => {
    const text = formatTable(['a'], [['one\ntwo']], 80);
    expect(text.split('\n')[3]).toBe('│ one↵two │');
  });

  it('shows control characters as symbols, so a cell cannot move the cursor or clear the terminal', () => {
    // An actor or a handler's error message could hold these: ESC sequences, a bell, a tab, DEL, C1, bidi overrides.
    const cell = 'ann\u001b[2J\u001b]0;owned\u0007\tx\u007f\u009b\u202eevil';
    const line = formatTable(['actor'], [[cell]]).split('\n')[3] as string;
    expect(line).toBe('│ ann␛[2J␛]0;owned␇␉x␡��evil │');
  });

  it('takes every column down to three characters at the narrowest', () => {
    const text = formatTable(['alpha', 'beta'], [['aaaaaa', 'bbbbbb']], 5);
    expect(text.split('\n')[3]).toBe('│ aa… │ bb… │');
  });

  it('formats 10,000 rows of eight columns, in one line each', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => [
      `evt-${i}.announce`,
      'handler',
      'announce',
      'RECORD.PUBLISHED',
      'exhausted',
      '3',
      '2026-12-04T02:00:00.000Z',
      'boom '.repeat(12),
    ]);
    const head = ['id', 'kind', 'handler', 'handling key', 'reason', 'attempts', 'dead at', 'error'];
    const lines = formatTable(head, rows, 120).split('\n');
    expect(lines).toHaveLength(10_004);
    expect(lines.every((line) => line.length === 120)).toBe(true);
  });
});

describe('tableWidth', () => {
  it("is the terminal's width on a terminal, COLUMNS when set otherwise, else none", () => {
    expect(tableWidth({ isTTY: true, columns: 100 }, { COLUMNS: '50' })).toBe(100);
    expect(tableWidth({ isTTY: false }, { COLUMNS: '50' })).toBe(50);
    expect(tableWidth({}, {})).toBeUndefined();
    expect(tableWidth({}, { COLUMNS: 'wide' })).toBeUndefined();
  });
});
