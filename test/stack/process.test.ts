// Target 1: the process stack. The built server on a loopback port and Debian's nginx
// running the configuration render.sh produces from proxy/templates.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/keys/format.js';
import { startHttpServer } from '../helpers/http-server.js';
import { CLI, DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { freePort, NJS_MODULE, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { defineKeyLifecycleSuite } from './keys-suite.js';
import { defineStackSuite } from './suite.js';
import { ALLOWED_HOST, defineBrowserSuite, startPageServer } from './browser-suite.js';

async function startProcessStack(extraProxyEnv: Record<string, string> = {}, serverEnv: Record<string, string> = {}, mode: 'static' | 'store' = 'static') {
  const dir = tempDir('signet-stack-');
  const key = newApiKey();
  const store = join(dir, 'keys', 'keys.json');
  const server = await startHttpServer({
    SIGNET_DATA_DIR: join(dir, 'data'),
    SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
    SIGNET_TRUSTED_PROXIES: '127.0.0.1/32',
    SIGNET_ALLOWED_HOSTS: '127.0.0.1',
    ...serverEnv,
  });
  const port = await freePort();
  const modeEnv: Record<string, string> =
    mode === 'static'
      ? { SIGNET_API_KEY: key }
      : { SIGNET_KEY_STORE: store, SIGNET_PROXY_WORKER_USER: 'root', ...(NJS_MODULE ? { SIGNET_PROXY_NJS_MODULE: NJS_MODULE } : {}) };
  if (mode === 'store') await runKeys(store, ['init']); // an empty store, as the compose stack starts
  const rendered = renderProxy({ ...processProxyEnv(dir, port, server.port), ...modeEnv, ...extraProxyEnv });
  if (rendered.code !== 0) throw new Error(rendered.stderr);
  const nginx = await startNginx(dir, port);
  const stop = async () => {
    await nginx.stop();
    await server.stop();
  };
  return { dir, key, store, server, nginx, port, stop };
}

function runKeys(store: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'keys', '--store', store, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

defineKeyLifecycleSuite('process stack', async () => {
  const s = await startProcessStack({}, {}, 'store');
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    clientAddress: '127.0.0.3',
    keys: (args) => runKeys(s.store, args),
    readStore: async () => readFileSync(s.store, 'utf8'),
    writeStore: async (content) => {
      writeFileSync(`${s.store}.test`, content, { mode: 0o600 });
      renameSync(`${s.store}.test`, s.store);
    },
    serverLogs: async () => s.server.logs(),
    proxyLogs: async () => s.nginx.accessLog() + s.nginx.errorLog(),
    stop: s.stop,
  };
});

describe('per-key rate limit beside the per-IP one (key store mode)', () => {
  it('stops one key after SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE calls while another key from the same IP goes on', async () => {
    const s = await startProcessStack({}, { SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE: '5' }, 'store');
    try {
      const a = (await runKeys(s.store, ['create', '--name', 'a'])).out.trim();
      const b = (await runKeys(s.store, ['create', '--name', 'b'])).out.trim();
      const call = (key: string, id: number) =>
        fetch(`http://127.0.0.1:${s.port}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'doctrine_info', arguments: {} } }),
        });
      for (let i = 0; i < 5; i++) expect((await call(a, i)).status).toBe(200);
      const limited = await call(a, 5);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('ratelimit-policy')).toBe('"calls";q=60;w=60, "key-calls";q=5;w=60');
      expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(/for this API key/);
      expect((await call(b, 6)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});

defineStackSuite('process stack', async () => {
  const s = await startProcessStack();
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    key: s.key,
    clientAddress: '127.0.0.2',
    expectedClientIp: '127.0.0.2',
    serverLogs: async () => s.server.logs(),
    proxyLogs: async () => s.nginx.accessLog() + s.nginx.errorLog(),
    stop: s.stop,
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

  it('without SIGNET_API_KEY, uses the key store when there is one (key-store mode)', async () => {
    const store = join(dir, 'keys', 'keys.json');
    await runKeys(store, ['init']);
    const out = join(dir, 'conf-store');
    const r = renderProxy({ ...env(undefined), SIGNET_KEY_STORE: store, SIGNET_PROXY_CONF_DIR: out });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/store key mode/);
    const http = readFileSync(join(out, 'nginx.conf'), 'utf8');
    expect(http).toContain('js_set $signet_auth signet_auth.check;');
    expect(http).toContain('load_module');
    expect(readFileSync(join(out, 'signet.conf'), 'utf8')).not.toMatch(/sgnk_/);
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
      await s.stop();
    }
  });
});

defineBrowserSuite('process stack', async () => {
  const pages = await startPageServer();
  const origin = `http://${ALLOWED_HOST}:${pages.port}`;
  const s = await startProcessStack({ SIGNET_ALLOWED_ORIGINS: origin }, { SIGNET_ALLOWED_ORIGINS: origin });
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    key: s.key,
    pagePort: pages.port,
    trustFile: async () => execFileSync(process.execPath, [CLI, 'trust', 'export'], { env: { PATH: process.env['PATH'] ?? '', SIGNET_DATA_DIR: join(s.dir, 'data') } }).toString(),
    stop: async () => {
      await s.stop();
      await pages.close();
    },
  };
});
