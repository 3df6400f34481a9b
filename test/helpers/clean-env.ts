// The environment a spawned tool gets: what it needs to run, stated, never the test runner's
// own (npm run -s exports npm_config_loglevel=silent, which a recipe's `npm ci` then inherited
// and printed nothing; a developer's SIGNET_* or DOCKER_* variables would leak the same way).
const PASSED = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'] as const;

export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}
