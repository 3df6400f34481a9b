// Target 1: the process stack. The built server on a loopback port and Debian's nginx
// running the configuration render.sh produces from proxy/templates.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { rawRequest } from '../helpers/http-server.js';
import { selfSignedCert } from '../helpers/openssl.js';
import { CLI } from '../helpers/paths.js';
import { processProxyEnv, renderProxy } from '../helpers/proxy-process.js';
import { rawExchange } from '../helpers/raw-http.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { ALLOWED_HOST, defineBrowserSuite, startPageServer } from './browser-suite.js';
import { defineKeyLifecycleSuite } from './keys-suite.js';
import { runKeys, startProcessStack } from './process-stack.js';
import { accessLines, defineStackSuite, requestLines } from './suite.js';

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
    // The proxy side: nginx and the auth check it asks.
    proxyLogs: async () => s.nginx.accessLog() + s.nginx.errorLog() + (s.authCheck?.logs() ?? ''),
    stop: s.stop,
  };
});

describe('budgets per principal (key store mode, issue 17 M4)', () => {
  it('gives two keys from one client address 60 tools/call each (the address is only a guard above them), then 429 for that key alone', async () => {
    const s = await startProcessStack({}, {}, 'store');
    try {
      const a = (await runKeys(s.store, ['create', '--name', 'a'])).out.trim();
      const b = (await runKeys(s.store, ['create', '--name', 'b'])).out.trim();
      const call = (key: string, id: number) =>
        fetch(`http://127.0.0.1:${s.port}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'doctrine_info', arguments: {} } }),
        });
      for (const key of [a, b]) {
        for (let i = 0; i < 59; i++) {
          const r = await call(key, i);
          expect(r.status, `call ${i}`).toBe(200);
          await r.arrayBuffer();
        }
        const last = await call(key, 59);
        expect(last.headers.get('ratelimit-policy')).toBe('"key-calls";q=60;w=60, "ip-guard";q=600;w=60');
        expect(last.headers.get('ratelimit')).toMatch(new RegExp(`^"key-calls";r=0;t=\\d+, "ip-guard";r=${key === a ? 540 : 480};`));
        const limited = await call(key, 60);
        expect(limited.status).toBe(429);
        // The first policy that refuses is the one reported.
        expect(limited.headers.get('ratelimit-policy')).toBe('"key-calls";q=60;w=60');
        expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(/for this API key/);
      }
    } finally {
      await s.stop();
    }
  });
});

describe('CORS at the proxy agrees with the server (issue 17: L5, loopback origins)', () => {
  const ping = (port: number, key: string, origin: string) =>
    rawRequest(`http://127.0.0.1:${port}/mcp`, {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, origin },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });

  it('refuses an Origin holding the map separator, which passed the proxy before; allows loopback origins by default', async () => {
    const s = await startProcessStack(
      { SIGNET_ALLOWED_ORIGINS: 'https://app.example.com' },
      { SIGNET_ALLOWED_ORIGINS: 'https://app.example.com' },
    );
    try {
      for (const origin of ['http://evil.example|', 'http://evil.example|x', '|', 'https://app.example.com|']) {
        const r = await ping(s.port, s.key, origin);
        expect(r.status, origin).toBe(403);
        expect(r.json(), origin).toMatchObject({ error: 'forbidden' }); // the proxy's answer, not the server's
        expect(r.headers['access-control-allow-origin'], origin).toBeUndefined();
      }
      expect((await ping(s.port, s.key, 'https://app.example.com')).headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect((await ping(s.port, s.key, 'http://localhost:5173')).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('refuses loopback origins at the proxy and the server with SIGNET_ALLOW_LOOPBACK_ORIGINS=false (a LAN deployment)', async () => {
    const lan = { SIGNET_ALLOWED_ORIGINS: 'https://mcp.lan.example', SIGNET_ALLOW_LOOPBACK_ORIGINS: 'false' };
    const s = await startProcessStack(lan, lan);
    try {
      for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000']) {
        const r = await ping(s.port, s.key, origin);
        expect(r.status, origin).toBe(403);
        expect(r.headers['access-control-allow-origin'], origin).toBeUndefined();
      }
      const ok = await ping(s.port, s.key, 'https://mcp.lan.example');
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe('https://mcp.lan.example');
      // The server agrees on its own (a gateway that skips CORS still gets 403 from it).
      const direct = await rawRequest(s.server.url, {
        headers: { 'content-type': 'application/json', origin: 'http://localhost:5173' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(direct.status).toBe(403);
    } finally {
      await s.stop();
    }
  });
});

describe('refused keys counted per IPv6 /64 at the proxy (issue 17: L1)', () => {
  it('puts every address of one /64 in one bucket, whatever its written form, and another /64 in its own', async () => {
    const s = await startProcessStack({
      SIGNET_PROXY_TRUSTED_PROXIES: '127.0.0.1',
      SIGNET_PROXY_AUTH_FAILURES_BURST: '3',
      SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '1',
    });
    try {
      const refused = (from: string, i: number) =>
        rawRequest(`http://127.0.0.1:${s.port}/mcp`, {
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer sgnk_${String(i).padStart(57, 'Q')}`,
            'x-forwarded-for': from,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
        });
      const statuses = async (addresses: string[]) => {
        const out: number[] = [];
        for (const [i, a] of addresses.entries()) out.push((await refused(a, i)).status);
        return out;
      };
      // One /64 (2001:db8:1:2::/64), a new address for every try: a burst of 3 (plus the one
      // the rate frees), then 429.
      const rotating = await statuses(Array.from({ length: 8 }, (_, i) => `2001:db8:1:2:${(i + 1).toString(16)}::${i + 7}`));
      expect(rotating.slice(0, 4)).toEqual([401, 401, 401, 401]);
      expect(rotating.slice(4)).toEqual([429, 429, 429, 429]);
      // Compressed forms of one /64 (2001:db8::/64: "::" in the first four groups) share a bucket too.
      const compressed = await statuses([
        '2001:db8::1',
        '2001:db8::1:0:0:2',
        '2001:db8:0:0:5::3',
        '2001:db8::7:8:9:a',
        '2001:db8::b',
        '2001:db8::c',
      ]);
      expect(compressed.filter((st) => st === 429).length).toBe(2);
      // Another /64 and an IPv4 client keep their own buckets.
      expect((await statuses(['2001:db8:1:3::1']))[0]).toBe(401);
      expect((await statuses(['198.51.100.9']))[0]).toBe(401);
    } finally {
      await s.stop();
    }
  });
});

/** The suite refuses many keys on purpose: room for them (the defaults are tested on their own below). */
const SUITE_AUTH_FAILURES = { SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '600', SIGNET_PROXY_AUTH_FAILURES_BURST: '100' };

defineStackSuite('process stack', async () => {
  const s = await startProcessStack(SUITE_AUTH_FAILURES);
  return {
    baseUrl: `http://127.0.0.1:${s.port}`,
    key: s.key,
    clientAddress: '127.0.0.2',
    expectedClientIp: '127.0.0.2',
    directUrl: s.server.url,
    perKeyLimit: false,
    authFailureBurst: 100,
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
    ['not sgnk_', `ghp_${'a'.repeat(40)}`, /not a Signet key/],
    ['bare prefix', 'sgnk_', /too short/],
    ['too short', 'sgnk_abc123', /too short/],
    ['with punctuation', `sgnk_${'a'.repeat(40)}";`, /only letters and digits/],
    ['with a space', `sgnk_${'a'.repeat(20)} ${'a'.repeat(20)}`, /only letters and digits/],
  ])('%s key: exit 1 with a message saying what to do, and no configuration written', (_label, key, message) => {
    const out = join(dir, `conf-${_label.replace(/\W/g, '')}`);
    const r = renderProxy({ ...env(key), SIGNET_PROXY_CONF_DIR: out });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/signet keys new|SIGNET_API_KEY/);
    expect(existsSync(join(out, 'signet.conf'))).toBe(false);
  });

  it('without SIGNET_API_KEY, asks the auth check named by SIGNET_PROXY_AUTH_CHECK (the key store is its)', async () => {
    const out = join(dir, 'conf-check');
    const r = renderProxy({ ...env(undefined), SIGNET_PROXY_AUTH_CHECK: 'auth:3100', SIGNET_PROXY_CONF_DIR: out });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\(check credentials, keys, /);
    expect(readFileSync(join(out, 'auth.conf'), 'utf8')).toContain('auth_request /.signet-auth-check;');
    expect(readFileSync(join(out, 'auth-http.conf'), 'utf8')).toContain('server auth:3100;');
    for (const f of ['signet.conf', 'auth.conf', 'nginx.conf']) expect(readFileSync(join(out, f), 'utf8')).not.toMatch(/sgnk_[0-9A-Za-z]/);
  });
});

describe('reference proxy: optional TLS', () => {
  it('serves HTTPS (TLS 1.2+) with a mounted certificate and key, and refuses TLS 1.1', async () => {
    const dir = tempDir('signet-tls-');
    const tls = join(dir, 'tls');
    mkdirSync(tls);
    selfSignedCert({
      keyFile: join(tls, 'tls.key'),
      certFile: join(tls, 'tls.crt'),
      commonName: 'localhost',
      altNames: 'IP:127.0.0.1,DNS:localhost',
      days: 1,
    });
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
      const ok = await get(
        '/mcp',
        { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      );
      expect(JSON.parse(ok.body)).toEqual({ result: {}, jsonrpc: '2.0', id: 1 });
      const denied = await get('/mcp', { 'content-type': 'application/json' }, '{}');
      expect(denied.status).toBe(401);
      // Plain HTTP on the TLS port is refused (with JSON, like every error of the proxy), and
      // TLS 1.1 cannot be negotiated.
      const plain = await rawExchange(`http://127.0.0.1:${s.port}`, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(plain.statuses).toEqual([400]);
      expect(plain.text).toContain('{"error":"bad_request","message":"plain HTTP sent to the HTTPS port"}');
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
    trustFile: async () =>
      execFileSync(process.execPath, [CLI, 'trust', 'export'], {
        env: { PATH: process.env['PATH'] ?? '', SIGNET_DATA_DIR: join(s.dir, 'data') },
      }).toString(),
    stop: async () => {
      await s.stop();
      await pages.close();
    },
  };
});

/** The server's request-log line for one request id (the proxy's X-Request-Id), once written. */
async function serverLine(s: { server: { logs(): string } }, requestId: string): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 30; i++) {
    const line = requestLines(s.server.logs()).find((l) => l['req_id'] === requestId);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

const pingBody = (id: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const callBody = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'doctrine_info', arguments: {} } });

describe('client address from trusted front proxies only (X-Forwarded-For, nginx realip)', () => {
  // 127.0.0.9 plays the load balancer / ingress controller; any other 127.0.0.x is a client.
  const LB = '127.0.0.9';
  const via = (s: { port: number; key: string }, from: string, xff: string | null, body: string, key: string | null = s.key) =>
    rawRequest(`http://127.0.0.1:${s.port}/mcp`, {
      headers: {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(xff === null ? {} : { 'x-forwarded-for': xff }),
      },
      body,
      localAddress: from,
    });

  it('believes X-Forwarded-For from a trusted peer only; the per-IP limits then apply to the real client', async () => {
    const s = await startProcessStack({ SIGNET_PROXY_TRUSTED_PROXIES: `${LB}/32, 192.0.2.0/24` });
    try {
      expect(readFileSync(join(s.dir, 'conf', 'real-ip.conf'), 'utf8')).toMatch(
        /set_real_ip_from 127\.0\.0\.9\/32;[\s\S]*real_ip_recursive on;/,
      );
      // A client's own header is ignored: spoofed from an untrusted peer.
      const spoofed = await via(s, '127.0.0.2', '203.0.113.66', pingBody('spoof'));
      expect((await serverLine(s, String(spoofed.headers['x-request-id'])))?.['client_ip']).toBe('127.0.0.2');
      // A genuine one from the trusted peer: the right-most address that is not a trusted hop.
      const genuine = await via(s, LB, '198.51.100.7, 203.0.113.7', pingBody('lb'));
      expect((await serverLine(s, String(genuine.headers['x-request-id'])))?.['client_ip']).toBe('203.0.113.7');
      const twoHops = await via(s, LB, '203.0.113.8, 192.0.2.10', pingBody('hops'));
      expect((await serverLine(s, String(twoHops.headers['x-request-id'])))?.['client_ip']).toBe('203.0.113.8');
      // Behind the balancer, each client has its own tools/call budget.
      for (let i = 0; i < 60; i++) expect((await via(s, LB, '203.0.113.10', callBody(i))).status, `call ${i}`).toBe(200);
      expect((await via(s, LB, '203.0.113.10', callBody(60))).status).toBe(429);
      expect((await via(s, LB, '203.0.113.11', callBody(61))).status).toBe(200);
      // And its own budget of refused keys.
      const refused: number[] = [];
      for (let i = 0; i < 30; i++) refused.push((await via(s, LB, '203.0.113.20', pingBody(`r${i}`), `sgnk_${'Q'.repeat(57)}`)).status);
      expect(refused.slice(0, 21).every((st) => st === 401)).toBe(true);
      expect(refused.slice(21).every((st) => st === 429)).toBe(true);
      expect((await via(s, LB, '203.0.113.21', pingBody('other'), `sgnk_${'Q'.repeat(57)}`)).status).toBe(401);
      await new Promise((r) => setTimeout(r, 1200)); // the access log flushes every second
      const remote = accessLines(s.nginx.accessLog()).map((l) => l['remote_addr']);
      expect(remote).toEqual(expect.arrayContaining(['127.0.0.2', '203.0.113.7', '203.0.113.10', '203.0.113.20']));
      expect(remote).not.toContain('203.0.113.66');
    } finally {
      await s.stop();
    }
  });

  it('reads the PROXY protocol from a trusted load balancer only, and logs nothing of a plain request sent to it', async () => {
    const s = await startProcessStack({ SIGNET_PROXY_TRUSTED_PROXIES: LB, SIGNET_PROXY_REAL_IP_HEADER: 'proxy_protocol' });
    try {
      const base = `http://127.0.0.1:${s.port}`;
      const body = pingBody('pp');
      const request = (proxyLine: string, target = '/mcp') =>
        `${proxyLine}POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer ${s.key}\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
      const clientOf = async (text: string) => (await serverLine(s, /X-Request-Id: (\w+)/i.exec(text)![1]!))?.['client_ip'];
      const trusted = await rawExchange(base, request(`PROXY TCP4 203.0.113.5 127.0.0.1 5555 ${s.port}\r\n`), { localAddress: LB });
      expect(trusted.statuses).toEqual([200]);
      expect(await clientOf(trusted.text)).toBe('203.0.113.5');
      const untrusted = await rawExchange(base, request(`PROXY TCP4 203.0.113.6 127.0.0.1 5555 ${s.port}\r\n`), {
        localAddress: '127.0.0.2',
      });
      expect(untrusted.statuses).toEqual([200]);
      expect(await clientOf(untrusted.text)).toBe('127.0.0.2');
      // Plain HTTP (no PROXY header): the connection is dropped, and nginx's "broken header"
      // line, which would quote the request with the key in it, is not written.
      const plain = await rawExchange(base, request('', `/mcp?access_token=${s.key}`), { localAddress: '127.0.0.2' });
      expect(plain.statuses).toEqual([]);
      expect(plain.closed).toBe(true);
      await new Promise((r) => setTimeout(r, 1200));
      const logs = s.nginx.errorLog() + s.nginx.accessLog() + s.server.logs();
      expect(logs).not.toContain(s.key);
      expect(logs).not.toContain('broken header');
    } finally {
      await s.stop();
    }
  });

  it.each([
    [
      'a CIDR with junk',
      { SIGNET_PROXY_TRUSTED_PROXIES: '10.0.0.0/8;return' },
      /SIGNET_PROXY_TRUSTED_PROXIES: '10\.0\.0\.0\/8;return' is not an address/,
    ],
    ['a name', { SIGNET_PROXY_TRUSTED_PROXIES: 'lb.example.com' }, /is not an address or CIDR/],
    [
      'another header',
      { SIGNET_PROXY_TRUSTED_PROXIES: '10.0.0.0/8', SIGNET_PROXY_REAL_IP_HEADER: 'X-Real-IP' },
      /must be X-Forwarded-For or proxy_protocol/,
    ],
    ['the PROXY protocol from anyone', { SIGNET_PROXY_REAL_IP_HEADER: 'proxy_protocol' }, /needs SIGNET_PROXY_TRUSTED_PROXIES/],
    ['no refusals allowed', { SIGNET_PROXY_AUTH_FAILURES_BURST: '0' }, /SIGNET_PROXY_AUTH_FAILURES_BURST must be a whole number/],
    [
      'a rate that is not a number',
      { SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '1r/s' },
      /SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE must be a whole number/,
    ],
  ])('render.sh refuses %s', (_label, extra, message) => {
    const dir = tempDir('signet-render-');
    const r = renderProxy({ ...processProxyEnv(dir, 1, 2), SIGNET_API_KEY: newApiKey(), ...extra });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(dir, 'conf', 'signet.conf'))).toBe(false);
  });
});

describe('refused keys: the default limit per client address', () => {
  it('answers 20 refusals at once, then 429 until a second passes; a valid key from the same address never meets it', async () => {
    const s = await startProcessStack();
    try {
      const conf = readFileSync(join(s.dir, 'conf', 'signet.conf'), 'utf8') + readFileSync(join(s.dir, 'conf', 'errors.conf'), 'utf8');
      expect(conf).toContain('rate=60r/m');
      expect(conf).toContain('burst=20 nodelay');
      const post = (key: string, from: string, id: string) =>
        rawRequest(`http://127.0.0.1:${s.port}/mcp`, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: pingBody(id),
          localAddress: from,
        });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        statuses.push((await post(`sgnk_${'W'.repeat(56)}${i % 10}`, '127.0.0.31', `bad${i}`)).status);
        expect((await post(s.key, '127.0.0.31', `good${i}`)).status).toBe(200);
      }
      // 21: the burst of 20 plus the one the rate allows; the flood takes well under a second.
      expect(statuses.filter((st) => st === 401).length).toBeGreaterThanOrEqual(21);
      expect(statuses.filter((st) => st === 401).length).toBeLessThanOrEqual(22);
      expect(statuses.filter((st) => st === 429).length).toBeGreaterThanOrEqual(18);
      expect((await post('sgnk_nope', '127.0.0.32', 'elsewhere')).status).toBe(401);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await post('sgnk_nope', '127.0.0.31', 'later')).status).toBe(401);
      await new Promise((r) => setTimeout(r, 1200));
      expect(s.nginx.errorLog()).not.toMatch(/limiting requests/); // a flood writes no error-log line per refusal
    } finally {
      await s.stop();
    }
  });
});

describe('reference proxy: when Signet is down', () => {
  it("answers 503 with a JSON body and Retry-After, and logs the upstream error without the request's secrets", async () => {
    const s = await startProcessStack();
    try {
      await s.server.stop();
      const r = await rawRequest(`http://127.0.0.1:${s.port}/mcp`, {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
        body: pingBody('down'),
      });
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('1');
      expect(r.json()).toMatchObject({ error: 'unavailable' });
      const health = await rawRequest(`http://127.0.0.1:${s.port}/healthz`, { method: 'GET' });
      expect(health.status).toBe(503);
      const errors = s.nginx.errorLog();
      expect(errors).toMatch(/connect\(\) failed .* request: "POST \/mcp HTTP\/1\.1", upstream: "http:\/\/127\.0\.0\.1:\d+\/mcp"/);
      expect(errors).not.toContain(s.key);
    } finally {
      await s.stop();
    }
  });
});
