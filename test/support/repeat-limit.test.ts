/**
 * `limitRepeats`: of warnings and errors with one level and message, the
 * first `burst` of a window are written, the rest counted and said in one
 * line when the window ends; other messages and info lines pass untouched.
 */
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/support/logger.js';
import { limitRepeats } from '../../src/support/repeat-limit.js';
import { waitFor } from '../helpers/wait-for.js';

function recording(): { logger: Logger; lines: { level: string; fields: object; message: string }[] } {
  const lines: { level: string; fields: object; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string) =>
    void lines.push({ level, fields, message });
  return { logger: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('limitRepeats', () => {
  it('writes the first burst of a repeated line, then one line counting the rest when the window ends', async () => {
    const { logger, lines } = recording();
    const limited = limitRepeats(logger, { burst: 3, windowMs: 100 });
    for (let i = 0; i < 1_000; i++) limited.warn({ eventId: `e${i}` }, 'handler failed');
    limited.error({ eventId: 'x' }, 'handler failed');
    limited.warn({}, 'another line');
    for (let i = 0; i < 10; i++) limited.info({ i }, 'worker started');
    expect(
      lines.filter((l) => l.level === 'warn' && l.message === 'handler failed').map((l) => l.fields),
    ).toEqual([{ eventId: 'e0' }, { eventId: 'e1' }, { eventId: 'e2' }]);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(lines.filter((l) => l.message === 'another line')).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'info')).toHaveLength(10);
    await waitFor('the summary line', () => lines.some((l) => 'suppressed' in l.fields));
    expect(lines.filter((l) => 'suppressed' in l.fields)).toEqual([
      { level: 'warn', fields: { suppressed: 997, windowMs: 100 }, message: 'handler failed' },
    ]);
    // A new window writes in full again.
    limited.warn({ eventId: 'later' }, 'handler failed');
    expect(lines.at(-1)).toEqual({ level: 'warn', fields: { eventId: 'later' }, message: 'handler failed' });
  });
});
