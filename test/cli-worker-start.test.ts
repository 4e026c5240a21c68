import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli-runner.js';

const CLI_TIMEOUT = 60_000;

describe('commitbus worker, when the event store cannot start', () => {
  it('closes the worker, the bus and the DataSource, and exits 1 saying why', {
    timeout: CLI_TIMEOUT,
  }, async () => {
    const result = await runCli(['worker', 'test/fixtures/cli-store-start-fails.ts']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('fixture: bus closed');
    expect(result.stderr).toContain('fixture: data source destroyed');
    expect(result.stderr).toMatch(/commitbus: .*es_items/);
    expect(result.stdout).not.toContain('commitbus worker: bus');
  });
});
