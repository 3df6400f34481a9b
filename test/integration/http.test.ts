import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/signing/canonical.js';
import { SIGNED_MESSAGE, unsignedView } from '../../src/signing/format.js';
import { verifyOutput } from '../../src/signing/verify.js';
import { connectHttp, JSON_HEADERS, rawRequest, rpc, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { connectStdio } from '../helpers/mcp-client.js';
import { opensslSha256, opensslVerify } from '../helpers/openssl.js';
import { DEFAULT_DOCTRINE, FACTS } from '../helpers/paths.js';
import { writeProxySecret } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const facts = (name: string) => JSON.parse(readFileSync(FACTS(name), 'utf8'));
const call = (name: string, args: unknown, id: number | string = 1) => rpc('tools/call', { name, arguments: args }, id);

function expectSignedAndValid(structured: Record<string, unknown>): void {
  const footer = structured['footer'] as Record<string, string>;
  expect(opensslSha256(canonicalJson(unsignedView(structured)))).toBe(footer['output_hash']);
  expect(
    opensslVerify(
      footer['doctrine_public_key']!,
      SIGNED_MESSAGE.output(footer['signature_format']!, footer['output_hash']!),
      footer['output_signature']!,
    ),
  ).toBe(true);
  expect(
    opensslVerify(
      footer['doctrine_public_key']!,
      SIGNED_MESSAGE.doctrine(footer['signature_format']!, footer['doctrine_hash']!),
      footer['doctrine_signature']!,
    ),
  ).toBe(true);
}

describe('HTTP transport: MCP SDK client and raw fetch against the real server', () => {
  const dataDir = tempDir('signet-http-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer({
      SIGNET_DATA_DIR: dataDir,
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_RATE_LIMIT_PER_MINUTE: '1000',
    });
  });
  afterAll(async () => server?.stop());

  it('refuses contradictory facts as a signed error naming the constraint and the facts, and keeps serving', async () => {
    const client = await connectHttp(server.url);
    try {
      const r = await client.callTool({
        name: 'doctrine_evaluate',
        arguments: { facts: { transport: { kind: 'http' }, authentication: { method: 'none', required: true } } },
      });
      expect(r.isError).toBe(true);
      const signed = r.structuredContent as Record<string, unknown>;
      expectSignedAndValid(signed);
      const text = JSON.stringify(signed);
      expect(text).toContain('invalid_arguments');
      expect(text).toContain('facts contradict each other (FACTS-001)');
      expect(text).toContain('arguments.facts.authentication.method, arguments.facts.authentication.required');
      // The same server evaluates consistent facts right after, with the verdict the doctrine gives.
      const ok = await client.callTool({ name: 'doctrine_evaluate', arguments: { facts: facts('hardened-oauth') } });
      expect((ok.structuredContent as { result: { summary: { verdict: string } } }).result.summary.verdict).toBe('pass');
    } finally {
      await client.close();
    }
  });

  it('serves initialize, tools/list and every tool to the SDK Streamable HTTP client, with verified footers', async () => {
    const client = await connectHttp(server.url);
    try {
      expect(client.getServerVersion()?.name).toBe('signet');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(6);
      const results = [
        await client.callTool({ name: 'doctrine_info', arguments: {} }),
        await client.callTool({ name: 'doctrine_search', arguments: { query: 'forwarded for', limit: 3 } }),
        await client.callTool({ name: 'doctrine_get', arguments: { id: 'AUTH-001' } }),
        await client.callTool({ name: 'doctrine_evaluate', arguments: { facts: facts('exposed') } }),
        await client.callTool({ name: 'doctrine_evaluate', arguments: { facts: { transport: { kind: 'smoke-signals' } } } }),
      ];
      const verified = await client.callTool({ name: 'verify_output', arguments: { output: results[3] as Record<string, unknown> } });
      for (const r of [...results, verified]) expectSignedAndValid(r.structuredContent as Record<string, unknown>);
      expect(results[4]!.isError).toBe(true);
      expect((verified.structuredContent as { result: { valid: boolean } }).result.valid).toBe(true);
      const { resources } = await client.listResources();
      const read = await client.readResource({ uri: resources[0]!.uri });
      expect(read.contents[0]!['_meta']).toBeDefined();
    } finally {
      await client.close();
    }
  });

  it('returns the same bytes over HTTP (computed and cached) as over stdio', async () => {
    const args = { facts: facts('hardened') };
    const first = await rawRequest(server.url, { headers: JSON_HEADERS, body: call('doctrine_evaluate', args, 42) });
    const second = await rawRequest(server.url, { headers: JSON_HEADERS, body: call('doctrine_evaluate', args, 42) });
    expect(first.status).toBe(200);
    expect(second.body).toBe(first.body);
    const stdio = await connectStdio({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE });
    try {
      const viaStdio = await stdio.client.callTool({ name: 'doctrine_evaluate', arguments: args });
      expect(JSON.stringify(first.json().result)).toBe(JSON.stringify(viaStdio));
    } finally {
      await stdio.close();
    }
    // A server without the cache computes every call: same bytes again.
    const uncached = await startHttpServer({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE, SIGNET_CACHE_ENTRIES: '0' });
    try {
      const third = await rawRequest(uncached.url, { headers: JSON_HEADERS, body: call('doctrine_evaluate', args, 42) });
      expect(third.body).toBe(first.body);
    } finally {
      await uncached.stop();
    }
  });

  it('serves clients whose Accept header lacks text/event-stream, or that send none', async () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (accept) headers['accept'] = accept;
      const r = await rawRequest(server.url, { headers, body: rpc('tools/list') });
      expect(r.status).toBe(200);
      expect(r.json().result.tools).toHaveLength(6);
    }
    const html = await rawRequest(server.url, { headers: { 'content-type': 'application/json', accept: 'text/html' }, body: rpc('ping') });
    expect(html.status).toBe(406);
  });

  /** The text's bytes with its first "?" replaced by FF, a byte no UTF-8 text holds (inside a string: valid JSON if read leniently). */
  const notUtf8 = (text: string) => {
    const bytes = Buffer.from(text);
    bytes[bytes.indexOf('?')] = 0xff;
    return bytes;
  };

  it('answers every kind of bad input with the right status and a JSON-RPC error, and keeps serving', async () => {
    const cases: [string, Parameters<typeof rawRequest>[1], number, number | null][] = [
      ['malformed JSON', { headers: JSON_HEADERS, body: '{"jsonrpc": "2.0", "id": 1, "method": ' }, 400, -32700],
      ['empty body', { headers: JSON_HEADERS, body: '' }, 400, -32700],
      ['empty batch', { headers: JSON_HEADERS, body: '[]' }, 400, -32600],
      ['not a JSON-RPC message', { headers: JSON_HEADERS, body: '{"hello":"world"}' }, 400, -32600],
      ['wrong content type', { headers: { ...JSON_HEADERS, 'content-type': 'text/plain' }, body: rpc('ping') }, 415, -32000],
      [
        'form content type',
        { headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' },
        415,
        -32000,
      ],
      ['unknown protocol version', { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '1999-01-01' }, body: rpc('ping') }, 400, -32000],
      ['foreign Origin', { headers: { ...JSON_HEADERS, origin: 'http://evil.example' }, body: rpc('ping') }, 403, -32000],
      ['foreign Host', { headers: { ...JSON_HEADERS, host: 'evil.example:80' }, body: rpc('ping') }, 403, -32000],
      ['body over the limit (Content-Length)', { headers: JSON_HEADERS, body: 'x'.repeat(1024 * 1024 + 1) }, 413, -32000],
      ['body over the limit (chunked)', { headers: JSON_HEADERS, body: 'x'.repeat(2 * 1024 * 1024), chunked: true }, 413, -32000],
      ['nesting deeper than 64 levels (H2)', { headers: JSON_HEADERS, body: '['.repeat(60_000) + ']'.repeat(60) }, 400, -32700],
      ['more than 100000 values', { headers: JSON_HEADERS, body: `[${'0,'.repeat(100_000)}0]` }, 400, -32700],
      // Pen test L2: a byte that is not UTF-8 would be read as U+FFFD, and the body two ways.
      ['a body that is not UTF-8', { headers: JSON_HEADERS, body: notUtf8(rpc('ping', undefined, 'id?')) }, 400, -32700],
      ['GET', { method: 'GET', headers: { accept: 'text/event-stream' } }, 405, -32000],
      ['DELETE', { method: 'DELETE' }, 405, -32000],
      ['unknown method', { headers: JSON_HEADERS, body: rpc('tools/destroy') }, 200, -32601],
      ['unknown tool', { headers: JSON_HEADERS, body: call('format_disk', {}) }, 200, -32602],
    ];
    for (const [name, opts, status, code] of cases) {
      const r = await rawRequest(server.url, opts);
      expect(r.status, name).toBe(status);
      const body = r.json();
      expect(body.jsonrpc, name).toBe('2.0');
      expect(body.error?.code, name).toBe(code);
      expect(body.error.message, name).not.toMatch(/at .*\.js:\d+|\/work\/|node_modules/);
      if (status === 405) expect(r.headers['allow']).toBe('POST');
    }
    const ok = await rawRequest(server.url, { headers: JSON_HEADERS, body: rpc('ping', undefined, 'after-bad-input') });
    expect(ok.json()).toEqual({ result: {}, jsonrpc: '2.0', id: 'after-bad-input' });
  });

  it('answers /healthz and /readyz cheaply, outside the rate limit', async () => {
    const h = await rawRequest(server.url.replace('/mcp', '/healthz'), { method: 'GET' });
    expect(h.status).toBe(200);
    const r = await rawRequest(server.url.replace('/mcp', '/readyz'), { method: 'GET' });
    expect(r.json()).toMatchObject({ status: 'ready' });
    expect((await rawRequest(server.url.replace('/mcp', '/nope'), { method: 'GET' })).status).toBe(404);
  });
});

describe('HTTP rate limit and client IP (no proxy: a local server)', () => {
  const dataDir = tempDir('signet-http-rl-');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer({ SIGNET_DATA_DIR: dataDir, SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE }, ['--host', '0.0.0.0']);
  });
  afterAll(async () => server?.stop());

  const from = (localAddress: string, body: string, headers: Record<string, string> = {}) =>
    rawRequest(server.url, { headers: { ...JSON_HEADERS, ...headers }, body, localAddress });

  it('allows 60 tools/call per minute per client IP, answers the 61st with 429, leaves other IPs alone', async () => {
    for (let i = 1; i <= 60; i++) {
      const r = await from('127.0.0.2', call('doctrine_info', {}, i));
      expect(r.status, `call ${i}`).toBe(200);
      expect(r.headers['ratelimit-policy']).toBe('"calls";q=60;w=60');
      expect(r.headers['ratelimit']).toMatch(new RegExp(`^"calls";r=${60 - i};t=\\d+$`));
    }
    const limited = await from('127.0.0.2', call('doctrine_info', {}, 'call-61'));
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
    expect(limited.headers['ratelimit']).toMatch(/^"calls";r=0;t=\d+$/);
    expect(limited.json()).toMatchObject({ jsonrpc: '2.0', id: 'call-61', error: { code: -32000, data: { retry_after: retry } } });
    expect(limited.json().error.message).toMatch(/Rate limit exceeded/);

    // Cheap methods have their own, looser budget; another client IP has its own calls.
    expect((await from('127.0.0.2', rpc('tools/list'))).status).toBe(200);
    expect((await from('127.0.0.4', call('doctrine_info', {}))).status).toBe(200);
    // A batch is charged one point per tools/call in it.
    const batch = JSON.stringify([JSON.parse(call('doctrine_info', {}, 1)), JSON.parse(call('doctrine_info', {}, 2))]);
    const b = await from('127.0.0.5', batch);
    expect(b.status).toBe(200);
    expect(b.headers['ratelimit']).toMatch(/^"calls";r=58;/);
  });

  it('answers a principal over budget before reading its body when Mcp-Method names the call, and drains the body so the sender gets the 429', async () => {
    for (let i = 0; i < 60; i++) expect((await from('127.0.0.12', call('doctrine_info', {}, i))).status).toBe(200);
    // 900 KB that is not even JSON: never parsed, read and dropped.
    const big = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"doctrine_info","x":"${'y'.repeat(900_000)}"}}`;
    const limited = await from('127.0.0.12', big.replace('{"jsonrpc"', 'garbage {"jsonrpc"'), { 'mcp-method': 'tools/call' });
    expect(limited.status).toBe(429);
    expect(limited.json()).toMatchObject({
      id: null,
      error: { code: -32000, message: expect.stringMatching(/too many tool calls per minute/) },
    });
  });

  it('reads no identity header at all: X-Forwarded-For, X-Real-IP, X-Signet-Key-Id and a proxy secret are ignored', async () => {
    const forged = { 'x-signet-proxy-auth': 'a'.repeat(64), 'x-signet-key-id': 'victim' };
    for (let i = 0; i < 60; i++) {
      const r = await from('127.0.0.6', call('doctrine_info', {}, i), {
        'x-forwarded-for': `10.0.${i}.1`,
        'x-real-ip': `10.1.${i}.1`,
        ...forged,
      });
      expect(r.status).toBe(200);
    }
    expect((await from('127.0.0.6', call('doctrine_info', {}), { 'x-forwarded-for': '10.77.0.1', ...forged })).status).toBe(429);
    await server.waitForLog((l) => l['client_ip'] === '127.0.0.6');
    const lines = server.logLines().filter((l) => l['msg'] === 'mcp request');
    expect(lines.some((l) => l['key_id'] !== undefined || String(l['client_ip']).startsWith('10.'))).toBe(false);
  });
});

describe('HTTP behind the proxy: identity only from the proxy that presents the secret (H1)', () => {
  const dataDir = tempDir('signet-http-proxy-');
  const { path: secretFile, secret } = writeProxySecret(dataDir);
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(
      {
        SIGNET_DATA_DIR: dataDir,
        SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
        SIGNET_PROXY_SECRET_FILE: secretFile,
        SIGNET_TRUSTED_PROXIES: '127.0.0.9/32',
      },
      ['--host', '0.0.0.0'],
    );
  });
  afterAll(async () => server?.stop());

  const from = (localAddress: string, body: string, headers: Record<string, string> = {}) =>
    rawRequest(server.url, { headers: { ...JSON_HEADERS, ...headers }, body, localAddress });
  const proxy = (body: string, headers: Record<string, string> = {}) =>
    from('127.0.0.9', body, { 'x-signet-proxy-auth': secret, ...headers });

  it("refuses the pen test's forged request (no secret, forged X-Forwarded-For, key id and request id) with 403, and logs no forged field", async () => {
    const forged = { host: 'localhost', 'x-forwarded-for': '6.6.6.6', 'x-signet-key-id': 'victimid', 'x-request-id': 'forged-rid-1' };
    for (const [address, headers] of [
      ['127.0.0.9', forged],
      // One character off (never the same character: the secret is random hex).
      ['127.0.0.9', { ...forged, 'x-signet-proxy-auth': `${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}` }],
      ['127.0.0.3', { ...forged, 'x-signet-proxy-auth': secret }],
    ] as const) {
      const r = await from(address, call('doctrine_info', {}), headers);
      expect(r.status, `from ${address} with ${Object.keys(headers).join(', ')}: ${r.body.slice(0, 300)}`).toBe(403);
      expect(r.json()).toMatchObject({ error: { code: -32000, message: 'Forbidden: this server answers only its authenticated proxy' } });
      expect(r.headers['x-request-id']).not.toBe('forged-rid-1');
      expect(r.body).not.toContain('doctrine_hash');
    }
    await server.waitForLog((l) => l['msg'] === 'mcp request' && l['status'] === 403 && l['client_ip'] === '127.0.0.3');
    const lines = server.logLines().filter((l) => l['msg'] === 'mcp request');
    expect(lines.some((l) => l['client_ip'] === '6.6.6.6' || l['key_id'] === 'victimid' || l['req_id'] === 'forged-rid-1')).toBe(false);
    expect(server.logs()).not.toContain(secret);
  });

  it('honours X-Forwarded-For from the proxy (its own, last entry), so clients cannot choose a bucket', async () => {
    for (let i = 0; i < 60; i++) {
      expect((await proxy(call('doctrine_info', {}, i), { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    }
    expect((await proxy(call('doctrine_info', {}), { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    // A client prepending its own value does not escape: the proxy's entry is the last.
    expect((await proxy(call('doctrine_info', {}), { 'x-forwarded-for': '1.2.3.4, 203.0.113.7' })).status).toBe(429);
    // Another real client behind the same proxy has its own bucket, IPv4-mapped or not.
    expect((await proxy(call('doctrine_info', {}), { 'x-forwarded-for': '::ffff:203.0.113.8' })).status).toBe(200);
    expect((await proxy(call('doctrine_info', {}), { 'x-forwarded-for': '2001:db8::1' })).status).toBe(200);
    await server.waitForLog((l) => l['client_ip'] === '203.0.113.8');
    await server.waitForLog((l) => l['client_ip'] === '2001:db8::1');
  });

  it('gives each API key its own budget from one address (M4): two keys behind one NAT each get 60 tools/call', async () => {
    const nat = { 'x-forwarded-for': '198.51.100.50' };
    for (const key of ['keyA', 'keyB']) {
      for (let i = 1; i <= 60; i++) {
        const r = await proxy(call('doctrine_info', {}, i), { ...nat, 'x-signet-key-id': key });
        expect(r.status, `${key} call ${i}`).toBe(200);
        expect(r.headers['ratelimit-policy']).toBe('"key-calls";q=60;w=60, "ip-guard";q=600;w=60');
      }
      const limited = await proxy(call('doctrine_info', {}, 61), { ...nat, 'x-signet-key-id': key });
      expect(limited.status).toBe(429);
      expect(limited.json().error.message).toMatch(/too many tool calls per minute for this API key/);
    }
    // Requests without a key from the same address still have the address's own budget.
    expect((await proxy(call('doctrine_info', {}), nat)).status).toBe(200);
  });
});

describe('HTTP lifecycle', () => {
  it('drains on SIGTERM: requests in flight complete, new connections are refused, exit code 0', async () => {
    const server = await startHttpServer({
      SIGNET_DATA_DIR: tempDir('signet-http-term-'),
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_RATE_LIMIT_PER_MINUTE: '0',
      SIGNET_SHUTDOWN_DELAY_MS: '1000',
      // 46 requests in flight from one address: this test is about draining, not the in-flight bound.
      SIGNET_MAX_CONCURRENT_BODIES_PER_PRINCIPAL: '64',
      SIGNET_MAX_CONCURRENT_BODIES: '64',
    });
    // Slow clients: headers and half a body sent before SIGTERM, the rest after.
    const body = call('doctrine_evaluate', { facts: facts('exposed') }, 'slow');
    const slow = Array.from({ length: 5 }, () => {
      return new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
          );
          socket.write(body.slice(0, 40));
          // The rest arrives after the listener has closed (SIGTERM at 300 ms + 1000 ms delay).
          setTimeout(() => socket.write(body.slice(40)), 1600);
        });
        let data = '';
        socket.on('data', (c) => (data += c));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    });
    const fast = Array.from({ length: 40 }, (_, i) =>
      rawRequest(server.url, { headers: JSON_HEADERS, body: call('doctrine_search', { query: `rule ${i}` }, i) }),
    );
    await new Promise((r) => setTimeout(r, 300));
    server.proc.kill('SIGTERM');
    // Requests arriving during the drain delay are still served, and told to close.
    await new Promise((r) => setTimeout(r, 100));
    const late = await rawRequest(server.url, { headers: JSON_HEADERS, body: rpc('ping', undefined, 'late') });
    expect(late.status).toBe(200);
    expect(late.headers['connection']).toBe('close');
    expect((await rawRequest(server.url.replace('/mcp', '/readyz'), { method: 'GET' })).status).toBe(503);
    const responses = await Promise.all(slow);
    for (const r of responses) {
      expect(r).toMatch(/^HTTP\/1\.1 200 OK/);
      const json = JSON.parse(r.slice(r.indexOf('\r\n\r\n') + 4));
      expect(verifyOutput(json).signature_valid).toBe(true);
    }
    for (const r of await Promise.all(fast)) expect(r.status).toBe(200);
    expect(await server.exit).toBe(0);
    expect(server.logs()).toMatch(/http server draining/);
    await expect(rawRequest(server.url, { headers: JSON_HEADERS, body: rpc('ping') })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('drops a client that never finishes its headers', async () => {
    const server = await startHttpServer({
      SIGNET_DATA_DIR: tempDir('signet-http-slow-'),
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_HEADERS_TIMEOUT_MS: '1000',
      SIGNET_REQUEST_TIMEOUT_MS: '2000',
    });
    try {
      const started = Date.now();
      const closed = await new Promise<string>((resolve) => {
        const socket = connect(server.port, '127.0.0.1', () => socket.write('POST /mcp HTTP/1.1\r\nHost: x\r\n'));
        let data = '';
        socket.on('data', (c) => (data += c));
        socket.on('close', () => resolve(data));
      });
      expect(closed).toMatch(/^HTTP\/1\.1 408|^$/);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await rawRequest(server.url, { headers: JSON_HEADERS, body: rpc('ping') })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
