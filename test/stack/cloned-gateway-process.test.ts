// The reference proxy cloned in front of an MCP server no one here wrote (issue 28): the official
// `@modelcontextprotocol/server-everything` in streamable HTTP mode (stateful: sessions, SSE,
// DELETE), behind Debian's nginx rendered by proxy/render.sh with a static key, and a Chromium
// page on an allowed origin as the client: initialize, a session, a tool call, the session's
// SSE stream, its end with DELETE, every answer with exactly one set of CORS headers. Then a clone
// in front of a server at paths of its own and with no limit at all, keys checked by the auth
// check: the proxy forwards to the configured paths, and limits each key by itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { KeyStore } from '../../src/api-keys/store.js';
import { type AuthCheck, startAuthCheck } from '../helpers/auth-check-process.js';
import { rawRequest } from '../helpers/http-server.js';
import { ROOT } from '../helpers/paths.js';
import { freePort, type NginxProcess, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { proxySecretFile } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { ALLOWED_HOST, CHROMIUM } from './browser-suite.js';

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The page a team's web app would be: it speaks MCP over fetch, session and stream included. */
const CLIENT = `
async function session(url, key) {
  const out = { steps: [] };
  const auth = { Authorization: 'Bearer ' + key };
  const post = (body, extra = {}) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...auth, ...extra }, body: JSON.stringify(body) });
  /** The JSON-RPC answer, from a JSON body or the first SSE data line. */
  const answer = async (r) => { const t = await r.text(); const d = t.split('\\n').find((l) => l.startsWith('data:')); return JSON.parse(d ? d.slice(5) : t); };
  try {
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'web', version: '1' } } });
    const sid = init.headers.get('Mcp-Session-Id');
    out.steps.push({ step: 'initialize', status: init.status, session: Boolean(sid), server: (await answer(init)).result?.serverInfo?.name });
    const s = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' };
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, s);
    out.steps.push({ step: 'initialized', status: note.status });
    const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'through the proxy' } } }, s);
    out.steps.push({ step: 'tools/call', status: call.status, text: (await answer(call)).result?.content?.[0]?.text });
    // The session's stream (GET: a preflighted method), open while the session ends (DELETE):
    // the server then closes it, which the page sees as the stream's end.
    const stream = await fetch(url, { method: 'GET', headers: { Accept: 'text/event-stream', ...auth, ...s } });
    out.steps.push({ step: 'GET stream', status: stream.status, type: stream.headers.get('Content-Type') });
    const end = await fetch(url, { method: 'DELETE', headers: { ...auth, ...s } });
    out.steps.push({ step: 'DELETE', status: end.status });
    const reader = stream.body.getReader();
    while (!(await reader.read()).done);
    out.steps.push({ step: 'stream ended' });
    const after = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, s);
    out.steps.push({ step: 'after DELETE', status: after.status });
  } catch (e) { out.error = String(e); }
  return out;
}
window.gateway = { session };`;

describe('the proxy cloned in front of server-everything (streamable HTTP), a browser as the client', () => {
  let everything: ChildProcess;
  let nginx: NginxProcess;
  let pages: Server;
  let browser: Browser;
  let base = '';
  let origin = '';
  const key = newApiKey();

  beforeAll(async () => {
    const upstream = await freePort();
    everything = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { PATH: process.env['PATH'] ?? '', PORT: String(upstream) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const look = (c: Buffer) => {
        out += c;
        if (/listening on port/.test(out)) resolve();
      };
      everything.stdout!.on('data', look);
      everything.stderr!.on('data', look);
      everything.once('exit', (code) => reject(new Error(`server-everything exited ${code}: ${out}`)));
    });
    pages = createServer((req, res) => {
      if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(CLIENT);
      else
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>web client</title><script src="/client.js"></script>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    origin = `http://${ALLOWED_HOST}:${(pages.address() as AddressInfo).port}`;
    const dir = tempDir('signet-cloned-');
    const port = await freePort();
    // The documented clone: the server and its paths, a key; no Signet, no proxy secret.
    const env = processProxyEnv(dir, port, upstream, {
      SIGNET_API_KEY: key,
      SIGNET_PROXY_UPSTREAM_MCP_PATH: '/mcp',
      SIGNET_ALLOWED_ORIGINS: origin,
    });
    delete env['SIGNET_PROXY_SECRET_FILE'];
    const rendered = renderProxy(env);
    expect(rendered.code, rendered.stderr).toBe(0);
    nginx = await startNginx(dir, port);
    base = `http://127.0.0.1:${port}/mcp`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', `--host-resolver-rules=MAP ${ALLOWED_HOST} 127.0.0.1`],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await nginx?.stop();
    everything?.kill('SIGTERM');
    await new Promise<void>((r) => (pages ? pages.close(() => r()) : r()));
  });

  it('serves a browser session end to end: initialize, a tool call, the SSE stream (GET), DELETE', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    const result = (await page.evaluate(([url, k]) => (window as any).gateway.session(url, k), [base, key] as const)) as {
      steps: Record<string, unknown>[];
      error?: string;
    };
    expect(result.error).toBeUndefined();
    expect(result.steps).toEqual([
      { step: 'initialize', status: 200, session: true, server: expect.stringMatching(/everything/i) },
      { step: 'initialized', status: 202 },
      { step: 'tools/call', status: 200, text: 'Echo: through the proxy' },
      { step: 'GET stream', status: 200, type: expect.stringMatching(/^text\/event-stream/) },
      { step: 'DELETE', status: 200 },
      { step: 'stream ended' },
      { step: 'after DELETE', status: expect.any(Number) },
    ]);
    expect(result.steps[6]!['status']).not.toBe(200);
    await page.close();
  });

  it('sends exactly one set of CORS headers (the upstream sends its own "*"), and a preflight that allows GET and DELETE', async () => {
    const preflight = await rawRequest(base, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, mcp-session-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    const r = await rawRequest(base, {
      headers: {
        origin,
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'n', version: '1' } },
      }),
    });
    expect(r.status).toBe(200);
    // Node joins repeated headers with ", ": one value means one header.
    expect(r.headers['access-control-allow-origin']).toBe(origin);
    expect(r.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
  });

  it('serves the official SDK client through the proxy, and refuses it without the key', async () => {
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'sdk' } });
    expect((echoed.content as { text: string }[])[0]!.text).toBe('Echo: sdk');
    await client.close();
    const refused = await rawRequest(base, { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="signet"');
  });
});

describe('the proxy cloned in front of a server at paths of its own, with no limit: the proxy alone limits each key', () => {
  let upstream: Server;
  let check: AuthCheck;
  let nginx: NginxProcess;
  let base = '';
  const dir = tempDir('signet-cloned-limits-');
  const store = new KeyStore(join(dir, 'keys', 'keys.json'));
  /** What the server was asked: method and path, and the key id the proxy named. */
  const seen: { method: string; path: string; keyId: string }[] = [];
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'n', version: '1' } },
  });
  const call = (key: string, localAddress?: string) =>
    rawRequest(base, {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initialize,
      ...(localAddress ? { localAddress } : {}),
    });

  beforeAll(async () => {
    // A server that answers everything it is asked, as often as it is asked: MCP at /v1/rpc, health at /ready.
    upstream = createServer((req: IncomingMessage, res) => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', keyId: String(req.headers['x-signet-key-id'] ?? '') });
      req.resume();
      req.on('end', () => {
        if (req.url === '/ready') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        else if (req.url === '/v1/rpc' && req.method === 'POST')
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"plain","version":"1"}}}',
            );
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    check = await startAuthCheck({ SIGNET_KEY_STORE: store.path, SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir) });
    const port = await freePort();
    const rendered = renderProxy(
      processProxyEnv(dir, port, (upstream.address() as AddressInfo).port, {
        SIGNET_PROXY_AUTH_CHECK: `127.0.0.1:${check.port}`,
        SIGNET_PROXY_UPSTREAM_MCP_PATH: '/v1/rpc',
        SIGNET_PROXY_UPSTREAM_HEALTH_PATH: '/ready',
      }),
    );
    expect(rendered.code, rendered.stderr).toBe(0);
    nginx = await startNginx(dir, port);
    base = `http://127.0.0.1:${port}/mcp`;
  }, 60_000);
  afterAll(async () => {
    await nginx?.stop();
    await check?.stop();
    await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
  });

  it('forwards /mcp to SIGNET_PROXY_UPSTREAM_MCP_PATH and /healthz to SIGNET_PROXY_UPSTREAM_HEALTH_PATH', async () => {
    const { key, record } = await store.create('paths', null);
    seen.length = 0;
    expect((await rawRequest(base.replace(/\/mcp$/, '/healthz'), { method: 'GET' })).status).toBe(200);
    const r = await call(key);
    expect(r.status, r.body).toBe(200);
    expect(r.json().result.serverInfo.name).toBe('plain');
    expect(seen).toEqual([
      { method: 'GET', path: '/ready', keyId: '' },
      { method: 'POST', path: '/v1/rpc', keyId: record.id },
    ]);
  });

  it('answers 150 rapid initialize calls with one valid key past its burst with 429 itself; another key at the same address is served', async () => {
    const busy = await store.create('busy', null);
    const other = await store.create('other', null);
    seen.length = 0;
    const t0 = Date.now();
    const statuses: number[] = [];
    let refusal = '';
    for (let i = 0; i < 150; i++) {
      const r = await call(busy.key);
      statuses.push(r.status);
      if (r.status === 429) refusal = r.body;
    }
    const seconds = (Date.now() - t0) / 1000;
    const served = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // The default burst (SIGNET_PROXY_REQUESTS_BURST, 100) and one, then 600 a minute (10 a second).
    expect(served).toBeGreaterThanOrEqual(101);
    expect(served).toBeLessThanOrEqual(101 + Math.ceil(seconds * 10));
    expect(150 - served).toBeGreaterThan(0);
    expect(JSON.parse(refusal)).toMatchObject({ error: 'too_many_requests' });
    // The server saw exactly the calls the proxy let through; none of the refused ones.
    expect(seen.filter((x) => x.keyId === busy.record.id)).toHaveLength(served);
    // The limit is the key's, not the address's: another key from the same address is served.
    expect((await call(other.key)).status).toBe(200);
  });
});
