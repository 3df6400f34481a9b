// The environment a spawned tool gets: what it needs to run, stated, never the test runner's
// own (npm run -s exports npm_config_loglevel=silent, which a recipe's `npm ci` then inherited
// and printed nothing; a developer's SIGNET_* or DOCKER_* variables would leak the same way).
// The machine's own settings pass: where programs are, the locale, and how it reaches the
// network (CA bundles and proxies: without them a recipe's npx waits out a TLS failure).
const PASSED = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'TZ',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
] as const;

export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}
