// One whole-stack suite, two targets: the process stack (built server + Debian's nginx on
// the same rendered template) and the compose stack (the project's docker-compose.yml).

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/signing/canonical.js';
import { SIGNED_MESSAGE, unsignedView } from '../../src/signing/format.js';
import { connectHttp, type RawResponse, rawRequest, rpc } from '../helpers/http-server.js';
import { CLIENT_KINDS, connectClient, exerciseEveryTool, TOOL_NAMES } from '../helpers/mcp-clients.js';
import { opensslSha256, opensslVerify } from '../helpers/openssl.js';
import { FACTS } from '../helpers/paths.js';
import { jsonBodies, rawExchange, rawHeader } from '../helpers/raw-http.js';

export interface StackTarget {
  /** Base URL of the proxy, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  key: string;
  /** Source address to use for requests (process stack: another 127.0.0.x); undefined = default. */
  clientAddress?: string;
  /** The address the server should see as the client (what the proxy saw). */
  expectedClientIp: string;
  /** The proxy names the key (key-store mode) and the server limits tools/call per key too, at 60. */
  perKeyLimit: boolean;
  /**
   * Refused keys a client may send at once before the proxy answers 429
   * (SIGNET_PROXY_AUTH_FAILURES_BURST; the targets raise it, so the suite's own refusals fit).
   */
  authFailureBurst: number;
  /** Signet's own /mcp, bypassing the proxy (process: its loopback port; compose: its backend address, from the host). */
  directUrl: string;
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

/** The proxy's access-log lines (JSON), whatever else its logs hold. */
export function accessLines(logs: string): Record<string, unknown>[] {
  return logs
    .split('\n')
    .filter((l) => l.startsWith('{"time"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Requests the proxy forwarded (upstream_status set); its access log flushes every second. */
export async function settledForwardCount(target: StackTarget): Promise<number> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 1200));
    const n = accessLines(await target.proxyLogs()).filter((l) => l['upstream_status'] !== '').length;
    if (n === last) return n;
    last = n;
  }
  return last;
}

/** Server requests and proxy forwards so far: together they say whether anything reached Node. */
async function reachedNode(target: StackTarget): Promise<{ server: number; forwarded: number }> {
  return { server: await settledRequestCount(target), forwarded: await settledForwardCount(target) };
}

/** A raw HTTP/1.x request: start line, header lines as given (nothing added), body. */
function raw(start: string, headers: string[], body = ''): string {
  return `${start}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;
}

function expectFooterValid(structured: Record<string, unknown>): void {
  const f = structured['footer'] as Record<string, string>;
  expect(opensslSha256(canonicalJson(unsignedView(structured)))).toBe(f['output_hash']);
  expect(
    opensslVerify(f['doctrine_public_key']!, SIGNED_MESSAGE.output(f['signature_format']!, f['output_hash']!), f['output_signature']!),
  ).toBe(true);
  expect(
    opensslVerify(
      f['doctrine_public_key']!,
      SIGNED_MESSAGE.doctrine(f['signature_format']!, f['doctrine_hash']!),
      f['doctrine_signature']!,
    ),
  ).toBe(true);
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
        expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
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
      for (const p of ['/metrics', '/readyz', '/'])
        expect((await rawRequest(`${target.baseUrl}${p}`, { method: 'GET' })).status, p).toBe(404);
      for (const p of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-authorization-server',
      ]) {
        const r = await rawRequest(`${target.baseUrl}${p}`, { method: 'GET' });
        expect(r.status, p).toBe(404);
        expect(r.headers['www-authenticate'], p).toBeUndefined();
      }
    });

    it('answers 401 with WWW-Authenticate to at least 20 wrong credentials, none of which reaches the server', async () => {
      const k = target.key;
      const other = `sgnk_${'A'.repeat(57)}`;
      const cases: [string, [string, string][]][] = [
        ['missing header', []],
        ['the key twice', [['authorization', `Bearer ${k} ${k}`]]],
        ['a token that is no key', [['authorization', 'Bearer abc.def.ghi']]],
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
        ['key in another header', [['x-api-key', k]]],
        ['key in Proxy-Authorization', [['proxy-authorization', `Bearer ${k}`]]],
        ['trailing comma', [['authorization', `Bearer ${k},`]]],
      ];
      expect(cases.length).toBeGreaterThanOrEqual(20);
      const before = await settledRequestCount(target);
      for (const [label, headers] of cases) {
        const r = await post(
          [['content-type', 'application/json'], ['accept', 'application/json, text/event-stream'], ...headers],
          rpc('tools/call', { name: 'doctrine_info', arguments: {} }),
        );
        expect(r.status, label).toBe(401);
        expect(r.headers['www-authenticate'], label).toBe('Bearer realm="signet"');
        expect(r.json().error, label).toBe('unauthorized');
      }
      expect(await settledRequestCount(target)).toBe(before);
    });

    it("refuses the review's attack table at the proxy: nothing reaches Node without a valid key", async () => {
      const k = target.key;
      const other = `sgnk_${'A'.repeat(57)}`;
      const host = `Host: ${new URL(target.baseUrl).host}`;
      const ping = rpc('ping', undefined, 'attack');
      const json = ['Content-Type: application/json', 'Accept: application/json, text/event-stream'];
      const req = (path: string, headers: string[], body = ping, version = 'HTTP/1.1') =>
        raw(
          `POST ${path} ${version}`,
          [host, ...json, ...headers, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'],
          body,
        );
      const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      const auth = `Authorization: Bearer ${k}`;
      // [label, raw bytes, the status of each answer in order ('0.9': a body without status line)]
      const cases: [string, string, (number | '0.9')[]][] = [
        ['two Authorization headers, the right one first', req('/mcp', [auth, `Authorization: Bearer ${other}`]), [400]],
        ['two Authorization headers, the right one second', req('/mcp', [`Authorization: Bearer ${other}`, auth]), [400]],
        ['two Authorization headers, both right', req('/mcp', [auth, auth]), [400]],
        ['a folded Authorization header (obs-fold)', req('/mcp', ['Authorization: Bearer', ` ${k}`]), [400]],
        ['a folded line after the right header', req('/mcp', [auth, ' x']), [400]],
        ['key in capitals', req('/mcp', [`Authorization: Bearer ${k.toUpperCase()}`]), [401]],
        ['a space before the colon', req('/mcp', [`Authorization : Bearer ${k}`]), [400]],
        ['a tab between scheme and key', req('/mcp', [`Authorization: Bearer\t${k}`]), [401]],
        ['two spaces between scheme and key', req('/mcp', [`Authorization: Bearer  ${k}`]), [401]],
        ['junk after the key', req('/mcp', [`Authorization: Bearer ${k} x`]), [401]],
        ['absolute-form target, with the key', req(`http://${new URL(target.baseUrl).host}/mcp`, [auth]), [400]],
        ['absolute-form target to another host, with the key', req('http://signet:3000/mcp', [auth]), [400]],
        ['//mcp, with the key', req('//mcp', [auth]), [400]],
        ['/./mcp, with the key', req('/./mcp', [auth]), [400]],
        ['/x/../mcp, with the key', req('/x/../mcp', [auth]), [400]],
        ['/healthz/..%2Fmcp, with the key', req('/healthz/..%2Fmcp', [auth]), [400]],
        ['/%6Dcp, with the key', req('/%6Dcp', [auth]), [400]],
        ['/mcp%2F, with the key', req('/mcp%2F', [auth]), [404]],
        ['/mcp/, with the key', req('/mcp/', [auth]), [404]],
        ['/MCP, with the key', req('/MCP', [auth]), [404]],
        ['/mcp#fragment, with the key', req('/mcp#x', [auth]), [400]],
        ['/mcp%00', req('/mcp%00', [auth]), [400]],
        ['a lower-case method', raw('post /mcp HTTP/1.1', [host, auth, 'Content-Length: 0']), [400]],
        ['HTTP/1.0 without a key', req('/mcp', [], ping, 'HTTP/1.0'), [401]],
        ['HTTP/0.9 GET /mcp', 'GET /mcp\r\n', ['0.9']],
        ['HTTP/0.9 GET /healthz', 'GET /healthz\r\n', ['0.9']],
        ['HTTP/2.0 as text', raw('POST /mcp HTTP/2.0', [host, auth, 'Content-Length: 0']), [505]],
        [
          'Transfer-Encoding and Content-Length (CL.TE), with the key',
          raw('POST /mcp HTTP/1.1', [host, ...json, auth, 'Content-Length: 4', 'Transfer-Encoding: chunked'], chunked(ping)),
          [400],
        ],
        [
          'an unknown Transfer-Encoding, with the key',
          raw('POST /mcp HTTP/1.1', [host, ...json, auth, 'Transfer-Encoding: xchunked', 'Connection: close'], chunked(ping)),
          [501],
        ],
        [
          'chunked without a key, a second request without a key hidden after the last chunk',
          raw('POST /mcp HTTP/1.1', [host, ...json, 'Transfer-Encoding: chunked'], chunked(ping)) + req('/mcp', []),
          [401, 401],
        ],
        ['Expect: 100-continue without a key', req('/mcp', ['Expect: 100-continue']), [401]],
        ['spoofed X-Signet-Key-Id without a key', req('/mcp', ['X-Signet-Key-Id: Forged00']), [401]],
        ['X-HTTP-Method-Override without a key', req('/mcp', ['X-HTTP-Method-Override: GET']), [401]],
      ];
      const before = await reachedNode(target);
      for (const [label, bytes, statuses] of cases) {
        const r = await rawExchange(target.baseUrl, bytes, { localAddress: target.clientAddress });
        if (statuses[0] === '0.9') {
          // HTTP/0.9 has no status line: the answer is the body alone.
          expect(r.statuses, label).toEqual([]);
          expect(JSON.parse(r.text), label).toMatchObject({ error: 'bad_request' });
          continue;
        }
        // nginx may send 100 Continue before its refusal.
        expect(
          r.statuses.filter((st) => st !== 100),
          label,
        ).toEqual(statuses);
        expect(r.text, label).not.toMatch(/<html/i);
        const bodies = jsonBodies(r.text);
        expect(bodies.length, label).toBe(statuses.length);
        if (statuses[0] === 401) expect(rawHeader(r.text, 'www-authenticate'), label).toBe('Bearer realm="signet"');
      }
      expect(await reachedNode(target)).toEqual(before);
    });

    it('takes the Bearer scheme in any case (RFC 9110 §11.1), the key exactly as it is', async () => {
      const host = `Host: ${new URL(target.baseUrl).host}`;
      const ping = rpc('ping', undefined, 'scheme');
      const req = (header: string) =>
        raw(
          'POST /mcp HTTP/1.1',
          [host, 'Content-Type: application/json', header, `Content-Length: ${ping.length}`, 'Connection: close'],
          ping,
        );
      const before = await reachedNode(target);
      for (const header of [
        `Authorization: bearer ${target.key}`,
        `AUTHORIZATION: BEARER ${target.key}`,
        `authorization: BeArEr ${target.key}`,
      ]) {
        const r = await rawExchange(target.baseUrl, req(header), { localAddress: target.clientAddress });
        expect(r.statuses, header.slice(0, 25)).toEqual([200]);
      }
      expect(
        (
          await rawExchange(target.baseUrl, req(`Authorization: bearer ${target.key.toUpperCase()}`), {
            localAddress: target.clientAddress,
          })
        ).statuses,
      ).toEqual([401]);
      expect(await reachedNode(target)).toEqual({ server: before.server + 3, forwarded: before.forwarded + 3 });
    });

    it('lets a valid key through exactly once when a second request is smuggled behind its body', async () => {
      const host = `Host: ${new URL(target.baseUrl).host}`;
      const ping = rpc('ping', undefined, 'smuggle');
      const json = ['Content-Type: application/json', 'Accept: application/json'];
      const hidden = raw('POST /mcp HTTP/1.1', [host, ...json, `Content-Length: ${ping.length}`, 'Connection: close'], ping);
      const smuggles: [string, string][] = [
        [
          'behind a chunked body',
          raw(
            'POST /mcp HTTP/1.1',
            [host, ...json, `Authorization: Bearer ${target.key}`, 'Transfer-Encoding: chunked'],
            `${ping.length.toString(16)}\r\n${ping}\r\n0\r\n\r\n`,
          ) + hidden,
        ],
        [
          'behind a Content-Length body',
          raw('POST /mcp HTTP/1.1', [host, ...json, `Authorization: Bearer ${target.key}`, `Content-Length: ${ping.length}`], ping) +
            hidden,
        ],
      ];
      for (const [label, bytes] of smuggles) {
        const before = await reachedNode(target);
        const r = await rawExchange(target.baseUrl, bytes, { localAddress: target.clientAddress });
        expect(r.statuses, label).toEqual([200, 401]);
        expect(await reachedNode(target), label).toEqual({ server: before.server + 1, forwarded: before.forwarded + 1 });
      }
    });

    it('refuses a request that bypasses the proxy with a forged identity (H1): 403, nothing served, nothing forged logged', async () => {
      const forged = {
        ...JSON_HEADERS,
        host: 'localhost',
        'x-forwarded-for': '6.6.6.6',
        'x-signet-key-id': 'victimid',
        'x-request-id': 'forged-bypass-1',
        'x-signet-proxy-auth': 'not-the-secret-but-long-enough-0123456789',
      };
      const r = await rawRequest(target.directUrl, {
        headers: forged,
        body: rpc('tools/call', { name: 'doctrine_info', arguments: {} }, 'h1'),
      });
      expect(r.status).toBe(403);
      expect(r.json()).toMatchObject({
        id: null,
        error: { code: -32000, message: 'Forbidden: this server answers only its authenticated proxy' },
      });
      expect(r.headers['x-request-id']).not.toBe('forged-bypass-1');
      await settledRequestCount(target);
      const lines = requestLines(await target.serverLogs());
      expect(lines.find((l) => l['req_id'] === r.headers['x-request-id'])).toMatchObject({ status: 403, outcome: 'rejected' });
      expect(lines.some((l) => l['client_ip'] === '6.6.6.6' || l['key_id'] === 'victimid' || l['req_id'] === 'forged-bypass-1')).toBe(
        false,
      );
    });

    it('gives a valid key nothing extra for X-HTTP-Method-Override or a spoofed X-Signet-Key-Id', async () => {
      const auth = { authorization: `Bearer ${target.key}` };
      const get = await rawRequest(`${target.baseUrl}/mcp`, {
        method: 'GET',
        headers: { ...JSON_HEADERS, ...auth, 'x-http-method-override': 'POST' },
        localAddress: target.clientAddress,
      });
      expect(get.status).toBe(405); // the server's answer: the override is not obeyed
      expect(get.headers['allow']).toBe('POST');
      const posted = await post(
        { ...JSON_HEADERS, ...auth, 'x-http-method-override': 'DELETE', 'x-signet-key-id': 'Forged00' },
        rpc('ping', undefined, 'override'),
      );
      expect(posted.status).toBe(200);
      const requestId = posted.headers['x-request-id'];
      let line: Record<string, unknown> | undefined;
      for (let i = 0; i < 30 && !line; i++) {
        await new Promise((res) => setTimeout(res, 200));
        line = requestLines(await target.serverLogs()).find((l) => l['req_id'] === requestId);
      }
      expect(line).toBeDefined();
      expect(line!['key_id']).not.toBe('Forged00');
    });

    it('/healthz through the proxy: GET and HEAD only, no query string, no body, a JSON 405 for the rest', async () => {
      const url = `${target.baseUrl}/healthz`;
      const before = await reachedNode(target);
      const get = await rawRequest(url, { method: 'GET', localAddress: target.clientAddress });
      expect(get.status).toBe(200);
      expect(get.json()).toEqual({ status: 'ok' });
      const head = await rawRequest(url, { method: 'HEAD', localAddress: target.clientAddress });
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      // A body is refused before it is read (pen test M1 of issue 28: trickled bodies held the address's slots).
      const withBody = await rawRequest(url, {
        method: 'GET',
        headers: { 'content-length': '100' },
        body: 'x'.repeat(100),
        localAddress: target.clientAddress,
      });
      expect(withBody.status).toBe(413);
      expect(withBody.json()).toMatchObject({ error: 'payload_too_large' });
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const r = await rawRequest(url, { method, body: method === 'POST' ? '{}' : undefined, localAddress: target.clientAddress });
        expect(r.status, method).toBe(405);
        expect(r.headers['allow'], method).toBe('GET, HEAD');
        expect(r.json(), method).toMatchObject({ error: 'method_not_allowed' });
      }
      const query = await rawRequest(`${url}?access=1`, { method: 'GET', localAddress: target.clientAddress });
      expect(query.status).toBe(400);
      expect(query.json()).toMatchObject({ error: 'bad_request' });
      const big = await rawRequest(url, {
        method: 'GET',
        headers: { 'content-length': '4096' },
        body: 'x'.repeat(4096),
        localAddress: target.clientAddress,
      });
      expect(big.status).toBe(413);
      const chunkedBody = await rawRequest(url, {
        method: 'GET',
        headers: { 'transfer-encoding': 'chunked' },
        body: 'x'.repeat(4096),
        chunked: true,
        localAddress: target.clientAddress,
      });
      expect(chunkedBody.status).toBe(413); // refused unread, like any body here
      // Only the two GET/HEAD probes went through; the server logs no /healthz line.
      expect(await reachedNode(target)).toEqual({ server: before.server, forwarded: before.forwarded + 2 });
    });

    it('answers every error nginx itself produces with a JSON body, never its HTML page', async () => {
      const host = `Host: ${new URL(target.baseUrl).host}`;
      const cases: [string, string, number, string][] = [
        ['lower-case method', raw('get /mcp HTTP/1.1', [host]), 400, 'bad_request'],
        ['NUL in the path', raw('GET /mcp%00 HTTP/1.1', [host]), 400, 'bad_request'],
        [
          'a header line without a colon',
          raw('POST /mcp HTTP/1.1', [host, 'Authorization Bearer x', 'Content-Length: 0']),
          400,
          'bad_request',
        ],
        ['no key', raw('POST /mcp HTTP/1.1', [host, 'Content-Length: 0', 'Connection: close']), 401, 'unauthorized'],
        ['unknown path', raw('GET /admin HTTP/1.1', [host, 'Connection: close']), 404, 'not_found'],
        ['an internal location asked for directly', raw('GET /.signet-errors/400 HTTP/1.1', [host, 'Connection: close']), 404, 'not_found'],
        ['TRACE', raw('TRACE /mcp HTTP/1.1', [host]), 405, 'method_not_allowed'],
        [
          'a body over the limit',
          raw('POST /mcp HTTP/1.1', [host, 'Content-Length: 5000000', 'Connection: close']),
          413,
          'payload_too_large',
        ],
        ['a target over the limit', raw(`GET /${'a'.repeat(9000)} HTTP/1.1`, [host]), 414, 'uri_too_long'],
        ['a header over the limit', raw('POST /mcp HTTP/1.1', [host, `Authorization: Bearer ${'a'.repeat(9000)}`]), 400, 'bad_request'],
        ['an unknown Transfer-Encoding', raw('POST /mcp HTTP/1.1', [host, 'Transfer-Encoding: gzip']), 501, 'not_implemented'],
        ['HTTP/3.0 as text', raw('GET /mcp HTTP/3.0', [host]), 505, 'http_version_not_supported'],
      ];
      for (const [label, bytes, status, error] of cases) {
        const r = await rawExchange(target.baseUrl, bytes, { localAddress: target.clientAddress });
        expect(r.statuses, label).toEqual([status]);
        expect(rawHeader(r.text, 'content-type'), label).toBe('application/json');
        expect(r.text, label).not.toMatch(/<html/i);
        expect(jsonBodies(r.text)[0], label).toMatchObject({ error });
      }
    });

    it('ignores a client-supplied X-Forwarded-For / X-Real-IP: the server sees the address the proxy saw', async () => {
      const r = await post(
        { ...JSON_HEADERS, authorization: `Bearer ${target.key}`, 'x-forwarded-for': '203.0.113.66', 'x-real-ip': '203.0.113.67' },
        rpc('ping', undefined, 'xff-probe'),
      );
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

    it('charges a body refused after it was read, and refuses one that is not UTF-8 (issue 26: M2, L2)', async () => {
      const budget = new RegExp(`"${target.perKeyLimit ? 'key-calls' : 'calls'}";r=(\\d+)`);
      const withKey = { ...JSON_HEADERS, authorization: `Bearer ${target.key}` };
      const call = rpc('tools/call', { name: 'doctrine_get', arguments: { id: 'AUTH-002' } }, 'm2');
      const before = await post(withKey, call);
      expect(before.status).toBe(200);
      const left = Number(budget.exec(String(before.headers['ratelimit']))![1]);
      // Valid JSON up to its last two bytes: read and parsed whole before it is refused (M2).
      const malformed = await post(withKey, `${call} x`);
      expect(malformed.status).toBe(400);
      expect(malformed.json()).toMatchObject({ id: null, error: { code: -32700 } });
      // A byte no UTF-8 text holds, inside a string: a lenient reader would take it as U+FFFD (L2).
      const bytes = Buffer.from(rpc('tools/call', { name: 'doctrine_search', arguments: { query: 'tls ?' } }, 'l2'));
      bytes[bytes.indexOf('?')] = 0xff;
      const notUtf8 = await rawRequest(mcp(), { headers: withKey, body: bytes, localAddress: target.clientAddress });
      expect(notUtf8.status).toBe(400);
      expect(notUtf8.json()).toMatchObject({ id: null, error: { code: -32700, message: expect.stringMatching(/not UTF-8/) } });
      // Both refusals were charged to the key like calls: two more gone than the call alone takes.
      const after = await post(withKey, call);
      expect(after.status).toBe(200);
      expect(Number(budget.exec(String(after.headers['ratelimit']))![1])).toBe(left - 3);
    });

    it('limits one principal to 60 tools/call per minute: the 61st gets 429 with Retry-After, spoofed X-Forwarded-For does not help', async () => {
      const call = (id: number, extra: Record<string, string> = {}) =>
        post(
          { ...JSON_HEADERS, authorization: `Bearer ${target.key}`, ...extra },
          rpc('tools/call', { name: 'doctrine_get', arguments: { id: 'AUTH-001' } }, id),
        );
      const first = await call(0);
      expect(first.status).toBe(200);
      // Every policy that applied is listed. Where the proxy names keys (key-store mode), the key's
      // budget limits the call, with the client address's guard (ten keys' worth) above it;
      // with the static key, the client address's budget.
      expect(first.headers['ratelimit-policy']).toBe(
        target.perKeyLimit ? '"key-calls";q=60;w=60, "ip-guard";q=600;w=60' : '"calls";q=60;w=60',
      );
      const budget = new RegExp(`"${target.perKeyLimit ? 'key-calls' : 'calls'}";r=(\\d+)`);
      let remaining = Number(budget.exec(String(first.headers['ratelimit']))![1]);
      let i = 1;
      while (remaining > 0) {
        const r = await call(i++);
        expect(r.status).toBe(200);
        remaining = Number(budget.exec(String(r.headers['ratelimit']))![1]);
      }
      const limited = await call(i);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.json()).toMatchObject({ jsonrpc: '2.0', id: i, error: { code: -32000 } });
      const spoofed = await call(i + 1, { 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '198.51.100.2' });
      expect(spoofed.status).toBe(429);
    });

    it('answers a flood of refused keys from one address with 429, while a valid key from the same address goes on', async () => {
      const bad = (i: number) =>
        post({ ...JSON_HEADERS, authorization: `Bearer sgnk_${String(i).padStart(57, 'Z')}` }, rpc('ping', undefined, i));
      const good = () => post({ ...JSON_HEADERS, authorization: `Bearer ${target.key}` }, rpc('ping', undefined, 'good'));
      const statuses: number[] = [];
      for (let i = 0; i < target.authFailureBurst + 40; i++) {
        statuses.push((await bad(i)).status);
        if (i % 10 === 0) expect((await good()).status, `valid key after ${i} refusals`).toBe(200);
      }
      expect(statuses.filter((st) => st !== 401 && st !== 429)).toEqual([]);
      expect(statuses.filter((st) => st === 429).length).toBeGreaterThanOrEqual(20);
      // Past the burst, nginx lets refusals through at the zone's rate (here ten a second): the request
      // after the flood may be one of them (a slow moment spaces the flood out); the next, sent right
      // after it, is limited.
      let limited = await bad(99);
      if (limited.status === 401) limited = await bad(98);
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.json()).toMatchObject({ error: 'too_many_requests' });
      expect((await good()).status).toBe(200);
      // A refusal is let through again a second later (then one a second).
      await new Promise((r) => setTimeout(r, 1100));
      expect((await bad(100)).status).toBe(401);
    });

    it('never writes the key, wherever a client puts it, nor a control byte, to any log', async () => {
      const k = target.key;
      const body = k.slice(5);
      const host = `Host: ${new URL(target.baseUrl).host}`;
      const auth = `Authorization: Bearer ${k}`;
      const ping = rpc('ping', undefined, 'leak');
      const len = `Content-Length: ${ping.length}`;
      const places: string[] = [
        raw(`POST /mcp?access_token=${k} HTTP/1.1`, [host, len], ping),
        raw(`GET /healthz?access_token=${k} HTTP/1.1`, [host]),
        raw(`GET /?key=${k} HTTP/1.1`, [host]),
        raw(`GET /${k} HTTP/1.1`, [host]),
        raw(`GET /x/${body} HTTP/1.1`, [host]),
        raw(`POST /${k}/../mcp HTTP/1.1`, [host, auth, len], ping),
        raw(`POST /mcp?${k} HTTP/1.1`, [host, 'Content-Length: 5000000']),
        raw(`POST /${k} HTTP/1.1`, [host, 'Content-Length: 5000000']),
        raw(`get /mcp?${k} HTTP/1.1`, [host]),
        raw(`GET /mcp?${k} HTTP/1.1 junk`, [host]),
        raw(`GET /${k}%00 HTTP/1.1`, [host]),
        `GET /healthz?${k}\r\n`,
        raw('POST /mcp HTTP/1.1', [`Host: ${k}`, auth, 'Content-Length: 5000000']),
        raw('POST /mcp HTTP/1.1', [host, `Referer: https://app.example/?key=${k}`, auth, 'Content-Length: 5000000']),
        raw('POST /mcp HTTP/1.1', [host, `Referer: https://app.example/\x1b[31m"x"`, auth, len], ping),
        raw('POST /mcp HTTP/1.1', [host, auth, `Mcp-Method: ${k}`, `Mcp-Name: ${k}`, len], ping),
        raw('POST /mcp HTTP/1.1', [host, `User-Agent: ${k}`, `X-Forwarded-For: ${k}`, `X-Api-Key: ${k}`, len], ping),
        raw(`GET /a"b\x1b[31m HTTP/1.1`, [host]),
        raw('GET /%1b%22%0a HTTP/1.1', [host]),
      ];
      for (const bytes of places) await rawExchange(target.baseUrl, bytes, { localAddress: target.clientAddress, idleMs: 400 });
      await new Promise((r) => setTimeout(r, 1500)); // the proxy's access log flushes every second
      const proxy = await target.proxyLogs();
      const logs = (await target.serverLogs()) + proxy;
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(target.key);
      expect(logs).not.toContain(body);
      expect(logs).not.toMatch(/sgnk_[0-9A-Za-z]{8}/);
      expect(logs).not.toMatch(/Bearer\s+\S/);
      expect(proxy).not.toContain('uninitialized');
      // Control bytes only as line ends; the access log is JSON, one object a line.
      expect(proxy).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
      expect(accessLines(proxy).length).toBeGreaterThan(0);
    });
  });
  return { target: () => target };
}
