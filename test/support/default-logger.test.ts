/**
 * The default logger (pino): JSON lines on stderr with time, level, pid,
 * hostname, the bus's name and an Error field described (name, message,
 * code, stack); warnings and errors unless COMMITBUS_LOG_LEVEL says more or
 * less; a line repeated per event thinned out. Run in a child process, whose
 * stderr is the logger's. The active span's ids come as trace_id and span_id.
 */
import { spawn } from 'node:child_process';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { logTraceFields } from '../../src/tracing/log-trace-fields.js';
import { traceBed } from '../helpers/tracing.js';

const bed = traceBed();

async function linesOf(env: Record<string, string>): Promise<Record<string, unknown>[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/default-logger-lines.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).toBe(0);
  return err
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the default logger', () => {
  it('writes warnings and errors as JSON with time, level, pid, hostname, bus and the error described', async () => {
    const lines = await linesOf({ COMMITBUS_LOG_LEVEL: '' });
    expect(lines.some((l) => l.message === 'worker started')).toBe(false);
    const warn = lines.find((l) => l.message === 'handler failed');
    expect(warn).toMatchObject({
      level: 'warn',
      bus: 'ledger',
      eventId: 'e1',
      error: { name: 'TypeError', message: 'ledger row missing', code: 'LEDGER_GONE' },
    });
    expect(typeof warn?.pid).toBe('number');
    expect(typeof warn?.hostname).toBe('string');
    expect(Number.isNaN(Date.parse(String(warn?.time)))).toBe(false);
    expect(String((warn?.error as { stack?: string } | undefined)?.stack)).toContain(
      'default-logger-lines.ts',
    );
    // 20 identical errors: 5 written, the rest counted (the summary comes when the window ends, after exit).
    expect(lines.filter((l) => l.message === 'handler failed for good')).toHaveLength(5);
  });

  it('says more with COMMITBUS_LOG_LEVEL=info and nothing with silent', async () => {
    expect((await linesOf({ COMMITBUS_LOG_LEVEL: 'info' })).map((l) => l.message)).toContain(
      'worker started',
    );
    expect(await linesOf({ COMMITBUS_LOG_LEVEL: 'silent' })).toEqual([]);
  });
});

describe('log trace fields', () => {
  it("are the active span's trace and span ids, and none outside a span", async () => {
    expect(logTraceFields()).toEqual({});
    const { span, result } = await bed.inSpan('app', async () => logTraceFields());
    expect(result).toEqual({ trace_id: span.traceId, span_id: span.spanId });
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
