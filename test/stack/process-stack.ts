// The process stack: the built server on a loopback port and Debian's nginx running the
// configuration render.sh produces from proxy/templates, the server trusting only the proxy
// that presents their shared secret. With a static key (SIGNET_API_KEY, nginx compares it), or
// with the built `signet auth-check` answering the proxy for the key store and, given OAuth
// settings, for tokens (the shape the compose stack runs).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { newApiKey } from '../../src/api-keys/format.js';
import { type AuthCheck, startAuthCheck } from '../helpers/auth-check-process.js';
import { startHttpServer } from '../helpers/http-server.js';
import { CLI, DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { freePort, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { proxySecretFile } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

export async function startProcessStack(
  extraProxyEnv: Record<string, string> = {},
  serverEnv: Record<string, string> = {},
  mode: 'static' | 'store' = 'static',
  /** The proxy's port, when the caller must know it first (an OAuth resource URI names it). */
  proxyPort?: number,
  /** The auth check's settings beyond the store and the secret (store mode): SIGNET_AUTH_MODE, the OAuth ones. */
  authCheckEnv: Record<string, string> = {},
) {
  const dir = tempDir('signet-stack-');
  const key = newApiKey();
  const store = join(dir, 'keys', 'keys.json');
  const server = await startHttpServer({
    SIGNET_DATA_DIR: join(dir, 'data'),
    SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
    SIGNET_TRUSTED_PROXIES: '127.0.0.1/32',
    SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
    SIGNET_ALLOWED_HOSTS: '127.0.0.1',
    ...serverEnv,
  });
  const port = proxyPort ?? (await freePort());
  let authCheck: AuthCheck | null = null;
  let modeEnv: Record<string, string> = { SIGNET_API_KEY: key };
  if (mode === 'store') {
    await runKeys(store, ['init']); // an empty store, as the compose stack starts
    authCheck = await startAuthCheck({
      SIGNET_KEY_STORE: store,
      SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
      // The proxy's refused-credential limit settings are the auth check's too.
      ...pick(extraProxyEnv, [
        'SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE',
        'SIGNET_PROXY_AUTH_FAILURES_BURST',
        'SIGNET_RATE_LIMIT_IPV6_PREFIX',
      ]),
      ...pick(extraProxyEnv, ['SIGNET_AUTH_MODE', 'SIGNET_OAUTH_ISSUER', 'SIGNET_OAUTH_RESOURCE']),
      ...authCheckEnv,
    });
    modeEnv = { SIGNET_PROXY_AUTH_CHECK: `127.0.0.1:${authCheck.port}` };
  }
  const rendered = renderProxy({ ...processProxyEnv(dir, port, server.port), ...modeEnv, ...extraProxyEnv });
  if (rendered.code !== 0) throw new Error(rendered.stderr);
  const nginx = await startNginx(dir, port);
  const stop = async () => {
    await nginx.stop();
    await authCheck?.stop();
    await server.stop();
  };
  return { dir, key, store, server, nginx, port, authCheck, stop };
}

function pick(env: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]!]));
}

export function runKeys(store: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'keys', '--store', store, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}
