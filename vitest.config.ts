import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Files share one Redis and one PostgreSQL; each uses its own prefix and
    // schema, but running them one at a time keeps timings honest on 2 cores.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    setupFiles: ['reflect-metadata'],
    reporters: ['default', './test/helpers/summary-line.reporter.ts'],
  },
});
