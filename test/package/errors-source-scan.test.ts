/**
 * commitbus throws only CommitbusErrors: `src/` makes no bare Error,
 * TypeError, RangeError or AggregateError and declares no error class on
 * another base, outside the allow-list below (each entry says why), and
 * every error class sits in its room's `errors/` folder, but for the event
 * store's internal signals (caught beside where they are thrown).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** `file: line text` an allowed construction must contain, and why it is allowed. */
const ALLOWED: readonly { file: string; text: string; why: string }[] = [
  {
    file: 'src/event-store/end-session.ts',
    text: 'await pg.releasePostgresConnection(new Error(reason))',
    why: 'a reason handed to pg so it destroys the pooled connection; never thrown, no user sees it',
  },
  {
    file: 'src/dead-letters/dead-letters.ts',
    text: "new AggregateError(errors, 'redrive failures')",
    why: "the cause of a DeadLetterRedriveError (a CommitbusError) holding each letter's error",
  },
  {
    file: 'src/support/commitbus-error.ts',
    text: 'export abstract class CommitbusError extends Error {',
    why: 'the base itself',
  },
  {
    file: 'src/support/sanitize-error.ts',
    text: 'class SanitizedError extends Error {',
    why: "a masked copy of another library's error kept as a cause: it carries the original's name and code, not one of ours",
  },
];

/** Error classes outside an `errors/` folder: signals the event store's writer throws and catches itself, and a masked copy. */
const INTERNAL_SIGNALS = [
  'src/event-store/cycle-failure.ts',
  'src/event-store/run-batch.ts',
  // The masked copy of a foreign error (see ALLOWED), private to the file that makes it.
  'src/support/sanitize-error.ts',
];

const BARE =
  /\bnew (Error|TypeError|RangeError|SyntaxError|AggregateError|ReferenceError|EvalError|URIError)\(/;
const OTHER_BASE = /\bextends (Error|TypeError|RangeError|SyntaxError|AggregateError)\b/;
const ERROR_CLASS = /\bclass \w+ extends \w*Error\b/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every line of `src/` matching `pattern`, as `file:line: text`, minus the allowed ones. */
function offending(pattern: RegExp, root = 'src'): string[] {
  const found: string[] = [];
  for (const file of sources(root)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!pattern.test(line)) return;
        if (ALLOWED.some((a) => a.file === file && line.includes(a.text))) return;
        found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('the errors commitbus throws', () => {
  it('are never a bare Error, TypeError, RangeError or AggregateError', () => {
    expect(offending(BARE)).toEqual([]);
  });

  it('are classes on CommitbusError only', () => {
    expect(offending(OTHER_BASE)).toEqual([]);
  });

  it("live in their room's errors/ folder, one per *.error.ts file", () => {
    const misplaced = sources('src').filter((file) => {
      const declares = ERROR_CLASS.test(readFileSync(file, 'utf8'));
      const inFolder = /\/errors\/[a-z0-9-]+\.error\.ts$/.test(file);
      if (file === 'src/support/commitbus-error.ts' || INTERNAL_SIGNALS.includes(file)) return false;
      return declares !== inFolder;
    });
    expect(misplaced).toEqual([]);
  });

  it('has an allow-list whose every entry still matches one line (none stale)', () => {
    for (const allowed of ALLOWED) {
      expect(readFileSync(allowed.file, 'utf8'), allowed.why).toContain(allowed.text);
    }
  });
});
