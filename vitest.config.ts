import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that load the whole machine (floods, slowloris, the compose stacks, the soak): they run
 * after everything else, one file at a time, so timing-sensitive tests (rate limits, drains)
 * never share the two cores with them, and they never share them with each other.
 */
const LOAD = [
  'test/stack/load.test.ts',
  'test/stack/compose.test.ts',
  'test/stack/compose-scale.test.ts',
  'test/stack/compose-oauth.test.ts',
  'test/integration/abuse.soak.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Stack suites start real processes and containers; keep them from starving each other on 2 cores.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...LOAD],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'load', include: LOAD, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
