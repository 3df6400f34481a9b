// Target 1: the process stack. The built server on a loopback port and Debian's nginx
// running the configuration render.sh produces from proxy/templates.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/keys/format.js';
import { startHttpServer } from '../helpers/http-server.js';
import { DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { freePort, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { defineStackSuite } from './suite.js';

async function startProcessStack(extraProxyEnv: Record<string, string> = {}) {
  const dir = tempDir('signet-stack-');
  const key = newApiKey();
  const server = await startHttpServer({
    SIGNET_DATA_DIR: join(dir, 'data'),
    SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
    SIGNET_TRUSTED_PROXIES: '127.0.0.1/32',
    SIGNET_ALLOWED_HOSTS: '127.0.0.1',
  });
  const port = await freePort();
  const rendered = renderProxy({ ...processProxyEnv(dir, port, server.port), SIGNET_API_KEY: key, ...extraProxyEnv });
  if (rendered.code !== 0) throw new Error(rendered.stderr);
  const nginx = await startNginx(dir, port);
  return { dir, key, server, nginx, port };
}

defineStackSuite('process stack', async () => {
  const s = await startProcessStack();
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    key: s.key,
    clientAddress: '127.0.0.2',
    expectedClientIp: '127.0.0.2',
    serverLogs: async () => s.server.logs(),
    proxyLogs: async () => s.nginx.accessLog() + s.nginx.errorLog(),
    stop: async () => {
      await s.nginx.stop();
      await s.server.stop();
    },
  };
});

describe('reference proxy: refuses to start without a safe key', () => {
  const dir = tempDir('signet-render-');
  const env = (key: string | undefined) => ({ ...processProxyEnv(dir, 1, 2), ...(key === undefined ? {} : { SIGNET_API_KEY: key }) });

  it.each([
    ['missing', undefined, /no API key/],
    ['empty', '', /no API key/],
    ['not sgnk_', 'ghp_' + 'a'.repeat(40), /not a Signet key/],
    ['bare prefix', 'sgnk_', /too short/],
    ['too short', 'sgnk_abc123', /too short/],
    ['with punctuation', 'sgnk_' + 'a'.repeat(40) + '";', /only letters and digits/],
    ['with a space', 'sgnk_' + 'a'.repeat(20) + ' ' + 'a'.repeat(20), /only letters and digits/],
  ])('%s key: exit 1 with a message saying what to do, and no configuration written', (_label, key, message) => {
    const out = join(dir, `conf-${_label.replace(/\W/g, '')}`);
    const r = renderProxy({ ...env(key), SIGNET_PROXY_CONF_DIR: out });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/signet keys new|SIGNET_API_KEY/);
    expect(existsSync(join(out, 'signet.conf'))).toBe(false);
  });

  it('reads a minted key from SIGNET_API_KEY_FILE when SIGNET_API_KEY is not set, and never prints it', () => {
    const key = newApiKey();
    writeFileSync(join(dir, 'api-key'), key + '\n');
    const out = join(dir, 'conf-file');
    const r = renderProxy({ ...env(undefined), SIGNET_API_KEY_FILE: join(dir, 'api-key'), SIGNET_PROXY_CONF_DIR: out });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain(key);
    expect(readFileSync(join(out, 'signet.conf'), 'utf8')).toContain(`"Bearer ${key}"`);
  });
});

describe('reference proxy: optional TLS', () => {
  it('serves HTTPS (TLS 1.2+) with a mounted certificate and key, and refuses TLS 1.1', async () => {
    const dir = tempDir('signet-tls-');
    const tls = join(dir, 'tls');
    mkdirSync(tls);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', join(tls, 'tls.key'), '-out', join(tls, 'tls.crt')], { stdio: 'pipe' });
    const s = await startProcessStack({ SIGNET_TLS_DIR: tls });
    try {
      const ca = readFileSync(join(tls, 'tls.crt'));
      const get = (path: string, headers: Record<string, string> = {}, body?: string) =>
        new Promise<{ status: number; headers: Record<string, unknown>; body: string; protocol: string }>((resolve, reject) => {
          const req = httpsRequest({ host: '127.0.0.1', port: s.port, path, method: body ? 'POST' : 'GET', ca, headers }, (res) => {
            let data = '';
            const protocol = (res.socket as unknown as { getProtocol(): string }).getProtocol();
            res.on('data', (c) => (data += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, protocol }));
          });
          req.on('error', reject);
          req.end(body);
        });
      const health = await get('/healthz');
      expect(health.status).toBe(200);
      expect(['TLSv1.2', 'TLSv1.3']).toContain(health.protocol);
      expect(health.headers['strict-transport-security']).toBe('max-age=31536000');
      const ok = await get('/mcp', { 'content-type': 'application/json', authorization: `Bearer ${s.key}` }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      expect(JSON.parse(ok.body)).toEqual({ result: {}, jsonrpc: '2.0', id: 1 });
      const denied = await get('/mcp', { 'content-type': 'application/json' }, '{}');
      expect(denied.status).toBe(401);
      // Plain HTTP on the TLS port is refused, and TLS 1.1 cannot be negotiated.
      const old = execFileSync('sh', ['-c', `openssl s_client -connect 127.0.0.1:${s.port} -tls1_1 < /dev/null 2>&1; true`]).toString();
      expect(old).toMatch(/alert protocol version|no protocols available/);
      expect(old).toMatch(/Cipher is \(NONE\)/);
    } finally {
      await s.nginx.stop();
      await s.server.stop();
    }
  });
});
