// The reference proxy cloned in front of an MCP server no one here wrote (issue 28): the official
// `@modelcontextprotocol/server-everything` in streamable HTTP mode (stateful: sessions, SSE,
// DELETE), behind Debian's nginx rendered by proxy/render.sh with a static key, and a Chromium
// page on an allowed origin as the client: initialize, a session, a tool call, the session's
// SSE stream, its end with DELETE, every answer with exactly one set of CORS headers.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { rawRequest } from '../helpers/http-server.js';
import { ROOT } from '../helpers/paths.js';
import { freePort, type NginxProcess, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
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
