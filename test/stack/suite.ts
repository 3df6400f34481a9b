// One whole-stack suite, two targets: the process stack (built server + Debian's nginx on
// the same rendered template) and the compose stack (the project's docker-compose.yml).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../../src/signing/canonical.js';
import { unsignedView } from '../../src/signing/format.js';
import { connectHttp, rawRequest, rpc, type RawResponse } from '../helpers/http-server.js';
import { CLIENT_KINDS, connectClient, exerciseEveryTool } from '../helpers/mcp-clients.js';
import { opensslSha256, opensslVerify } from '../helpers/openssl.js';
import { FACTS } from '../helpers/paths.js';

export interface StackTarget {
  /** Base URL of the proxy, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  key: string;
  /** Source address to use for requests (process stack: another 127.0.0.x); undefined = default. */
  clientAddress?: string;
  /** The address the server should see as the client (what the proxy saw). */
  expectedClientIp: string;
  /** Everything Signet logged so far. */
  serverLogs(): Promise<string>;
  /** Everything the proxy logged so far. */
  proxyLogs(): Promise<string>;
  stop(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function requestLines(logs: string): Record<string, unknown>[] {
  return logs
    .split('\n')
    .map((l) => l.slice(l.indexOf('{')))
    .filter((l) => l.startsWith('{') && l.includes('"mcp request"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Signet buffers request logs (up to 100 ms): wait until the count stops moving. */
export async function settledRequestCount(target: StackTarget): Promise<number> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const n = requestLines(await target.serverLogs()).length;
    if (n === last) return n;
    last = n;
  }
  return last;
}

function expectFooterValid(structured: Record<string, unknown>): void {
  const f = structured['footer'] as Record<string, string>;
  expect(opensslSha256(canonicalJson(unsignedView(structured)))).toBe(f['output_hash']);
  expect(opensslVerify(f['doctrine_public_key']!, f['output_hash']!, f['output_signature']!)).toBe(true);
  expect(opensslVerify(f['doctrine_public_key']!, f['doctrine_hash']!, f['doctrine_signature']!)).toBe(true);
}

export function defineStackSuite(name: string, start: () => Promise<StackTarget>): { target: () => StackTarget } {
  let target: StackTarget;
  const mcp = () => `${target.baseUrl}/mcp`;
  const post = (headers: Record<string, string> | [string, string][], body: string, path = '/mcp'): Promise<RawResponse> =>
    rawRequest(`${target.baseUrl}${path}`, { headers, body, localAddress: target.clientAddress });

  describe(`${name}: whole stack through the reference proxy`, () => {
    beforeAll(async () => {
      target = await start();
    });
    afterAll(async () => {
      await target?.stop();
    });

    it('serves the MCP SDK client with the right key: initialize, tools/list, every tool, verified footers', async () => {
      const client = await connectHttp(mcp(), { Authorization: `Bearer ${target.key}` });
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['doctrine_evaluate', 'doctrine_get', 'doctrine_info', 'doctrine_search', 'verify_output']);
        const facts = JSON.parse(readFileSync(FACTS('exposed'), 'utf8'));
        const results = [
          await client.callTool({ name: 'doctrine_info', arguments: {} }),
          await client.callTool({ name: 'doctrine_search', arguments: { query: 'bearer key', limit: 3 } }),
          await client.callTool({ name: 'doctrine_get', arguments: { id: 'TLS-001' } }),
          await client.callTool({ name: 'doctrine_evaluate', arguments: { facts } }),
        ];
        results.push(await client.callTool({ name: 'verify_output', arguments: { output: results[3] as Record<string, unknown> } }));
        for (const r of results) expectFooterValid(r.structuredContent as Record<string, unknown>);
        expect((results[4]!.structuredContent as { result: { valid: boolean } }).result.valid).toBe(true);
      } finally {
        await client.close();
      }
    });

    it.each(CLIENT_KINDS)('serves the official %s client through the proxy: every tool, verified footers', async (kind) => {
      const client = await connectClient(kind, { http: mcp(), headers: { Authorization: `Bearer ${target.key}` } });
      try {
        await exerciseEveryTool(client);
      } finally {
        await client.close();
      }
    });

    it('answers /healthz without a key, and OAuth discovery with 404, not 401', async () => {
      const h = await rawRequest(`${target.baseUrl}/healthz`, { method: 'GET' });
      expect(h.status).toBe(200);
      expect(h.json()).toEqual({ status: 'ok' });
      // Nothing else of the server is reachable through the proxy: not its metrics, not /readyz.
      for (const p of ['/metrics', '/readyz', '/']) expect((await rawRequest(`${target.baseUrl}${p}`, { method: 'GET' })).status, p).toBe(404);
      for (const p of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
        const r = await rawRequest(`${target.baseUrl}${p}`, { method: 'GET' });
        expect(r.status, p).toBe(404);
        expect(r.headers['www-authenticate'], p).toBeUndefined();
      }
    });

    it('answers 401 with WWW-Authenticate to at least 20 malformed credentials, none of which reaches the server', async () => {
      const k = target.key;
      const other = 'sgnk_' + 'A'.repeat(57);
      const cases: [string, [string, string][], string?][] = [
        ['missing header', []],
        ['lower-case scheme', [['authorization', `bearer ${k}`]]],
        ['upper-case scheme', [['authorization', `BEARER ${k}`]]],
        ['two spaces', [['authorization', `Bearer  ${k}`]]],
        ['tab', [['authorization', `Bearer\t${k}`]]],
        ['no space', [['authorization', `Bearer${k}`]]],
        ['key with a suffix', [['authorization', `Bearer ${k}x`]]],
        ['key with a prefix', [['authorization', `Bearer x${k}`]]],
        ['truncated key', [['authorization', `Bearer ${k.slice(0, -1)}`]]],
        ['key in lower case', [['authorization', `Bearer ${k.toLowerCase()}`]]],
        ['key in upper case', [['authorization', `Bearer ${k.toUpperCase()}`]]],
        ['other scheme (Basic)', [['authorization', `Basic ${Buffer.from(`user:${k}`).toString('base64')}`]]],
        ['other scheme (Token)', [['authorization', `Token ${k}`]]],
        ['key without scheme', [['authorization', k]]],
        ['quoted key', [['authorization', `Bearer "${k}"`]]],
        ['empty key', [['authorization', 'Bearer ']]],
        ['scheme only', [['authorization', 'Bearer']]],
        ['another well-formed key', [['authorization', `Bearer ${other}`]]],
        ['two Authorization headers, right one first', [['authorization', `Bearer ${k}`], ['authorization', `Bearer ${other}`]]],
        ['two Authorization headers, right one second', [['authorization', `Bearer ${other}`], ['authorization', `Bearer ${k}`]]],
        ['key in the query string', [], `?key=${k}`],
        ['key in the query string as access_token', [], `?access_token=${k}`],
        ['key in another header', [['x-api-key', k]]],
        ['key in Proxy-Authorization', [['proxy-authorization', `Bearer ${k}`]]],
        ['trailing comma', [['authorization', `Bearer ${k},`]]],
      ];
      expect(cases.length).toBeGreaterThanOrEqual(20);
      const before = await settledRequestCount(target);
      for (const [label, headers, query] of cases) {
        const r = await post([['content-type', 'application/json'], ['accept', 'application/json, text/event-stream'], ...headers], rpc('tools/call', { name: 'doctrine_info', arguments: {} }), `/mcp${query ?? ''}`);
        expect(r.status, label).toBe(401);
        expect(r.headers['www-authenticate'], label).toBe('Bearer realm="signet"');
        expect(r.json().error, label).toBe('unauthorized');
      }
      expect(await settledRequestCount(target)).toBe(before);
    });

    it('ignores a client-supplied X-Forwarded-For / X-Real-IP: the server sees the address the proxy saw', async () => {
      const r = await post({ ...JSON_HEADERS, authorization: `Bearer ${target.key}`, 'x-forwarded-for': '203.0.113.66', 'x-real-ip': '203.0.113.67' }, rpc('ping', undefined, 'xff-probe'));
      expect(r.status).toBe(200);
      const requestId = r.headers['x-request-id'];
      expect(requestId).toMatch(/^[0-9a-f]{32}$/); // nginx's $request_id, passed through
      let line: Record<string, unknown> | undefined;
      for (let i = 0; i < 30 && !line; i++) {
        await new Promise((res) => setTimeout(res, 200));
        line = requestLines(await target.serverLogs()).find((l) => l['req_id'] === requestId);
      }
      expect(line?.['client_ip']).toBe(target.expectedClientIp);
    });

    it('limits one client to 60 tools/call per minute: the 61st gets 429 with Retry-After, spoofed X-Forwarded-For does not help', async () => {
      const call = (id: number, extra: Record<string, string> = {}) =>
        post({ ...JSON_HEADERS, authorization: `Bearer ${target.key}`, ...extra }, rpc('tools/call', { name: 'doctrine_get', arguments: { id: 'AUTH-001' } }, id));
      const first = await call(0);
      expect(first.status).toBe(200);
      expect(first.headers['ratelimit-policy']).toContain('"calls";q=60;w=60');
      let remaining = Number(/"calls";r=(\d+)/.exec(String(first.headers['ratelimit']))![1]);
      let i = 1;
      while (remaining > 0) {
        const r = await call(i++);
        expect(r.status).toBe(200);
        remaining = Number(/"calls";r=(\d+)/.exec(String(r.headers['ratelimit']))![1]);
      }
      const limited = await call(i);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.json()).toMatchObject({ jsonrpc: '2.0', id: i, error: { code: -32000 } });
      const spoofed = await call(i + 1, { 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '198.51.100.2' });
      expect(spoofed.status).toBe(429);
    });

    it('never writes the key, or anything after a Bearer, to any log', async () => {
      await new Promise((r) => setTimeout(r, 1500)); // the proxy's access log flushes every second
      const logs = (await target.serverLogs()) + (await target.proxyLogs());
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(target.key);
      expect(logs).not.toContain(target.key.slice(5));
      expect(logs).not.toMatch(/Bearer\s+\S/);
    });
  });
  return { target: () => target };
}
