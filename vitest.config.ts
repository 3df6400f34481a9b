import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Stack suites start real processes and containers; keep them from starving each other on 2 cores.
    maxWorkers: 2,
  },
});
