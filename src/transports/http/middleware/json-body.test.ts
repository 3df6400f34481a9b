import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpEnv } from '../env.js';
import { jsonBody, methodOf } from './json-body.js';

function app() {
  const a = new Hono<HttpEnv>();
  a.use('*', async (c, next) => {
    c.set('requestId', 'r');
    c.set('rpcMethod', null);
    await next();
  });
  a.post(
    '/mcp',
    jsonBody({ maxBytes: 64, shape: { maxDepth: 64, maxNodes: 1000 }, turns: null, ipv6Prefix: 64, chargeRefused: async () => null }),
    (c) => c.json({ payload: c.get('payload'), method: c.get('rpcMethod') }),
  );
  return a;
}

/** A raw HTTP/1.1 POST: `chunks` are written one by one, chunked unless a Content-Length is given. */
function post(
  port: number,
  chunks: string[],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('jsonBody', () => {
  let server: ServerType;
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app().fetch, hostname: '127.0.0.1', port: 0 }, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('parses a body that arrives in pieces, once, and names its method', async () => {
    const r = await post(port, ['{"jsonrpc":"2.0",', '"id":1,"method":"ping"}']);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ payload: { jsonrpc: '2.0', id: 1, method: 'ping' }, method: 'ping' });
  });

  it('refuses a body over the limit with 413 and Connection: close, declared or streamed', async () => {
    const declared = await post(port, ['x'.repeat(100)], { 'content-length': '100' });
    expect(declared.status).toBe(413);
    expect(declared.headers['connection']).toBe('close');
    const streamed = await post(port, [`[${'1,'.repeat(20)}`, '1,'.repeat(20), '1]']);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Payload Too Large: the request body must not exceed 64 bytes' },
      id: null,
    });
  });

  it('answers a body that is not JSON with 400 / -32700, also when empty', async () => {
    for (const body of ['{"jsonrpc":', '']) {
      const r = await post(port, [body]);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).error.code).toBe(-32700);
    }
  });

  it('works the same on a web Request (Hono app.request)', async () => {
    const a = app();
    expect((await a.request('/mcp', { method: 'POST', body: 'x'.repeat(65) })).status).toBe(413);
    expect(await (await a.request('/mcp', { method: 'POST', body: '[1]' })).json()).toEqual({ payload: [1], method: 'batch' });
  });

  it.each([
    [{ method: 'tools/call' }, 'tools/call'],
    [[{ method: 'ping' }], 'batch'],
    [{ method: 'x'.repeat(100) }, 'x'.repeat(64)],
    [{ method: 5 }, null],
    [null, null],
    ['text', null],
  ])('methodOf(%j)', (payload, expected) => expect(methodOf(payload)).toBe(expected));
});
