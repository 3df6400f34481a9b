import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that load the whole machine (floods, slowloris, the compose stacks, the image build, the soak): they run
 * after everything else, one file at a time, so timing-sensitive tests (rate limits, drains)
 * never share the two cores with them, and they never share them with each other.
 */
const LOAD = [
  'test/stack/load.test.ts',
  'test/stack/compose.test.ts',
  'test/stack/compose-scale.test.ts',
  'test/stack/compose-oauth.test.ts',
  'test/stack/compose-static-key.test.ts',
  'test/stack/image.test.ts',
  'test/stack/backup-restore.test.ts',
  'test/stack/compose-oauth-laptop.test.ts',
  'test/stack/clone-recipe.test.ts',
  'test/stack/readme-tour.test.ts',
  'test/integration/abuse.soak.test.ts',
];

/**
 * One project per kind of test, so each script runs what its name says (npm run test:unit,
 * test:integration, test:stack; npm test runs them all):
 *   unit         in process, beside the code (src/**) or under test/unit: no build, no tools
 *   integration  the built CLI and server as processes, with OpenSSL, jq, Redis, nginx -t
 *   stack        the process stack (nginx, the auth check, Chromium) and Docker examples
 *   load         the machine-loading files above, last and one at a time
 */
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
        test: { name: 'unit', include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...LOAD],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['test/stack/**/*.test.ts'],
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
