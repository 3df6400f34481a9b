import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { testContext } from '../../../../test/helpers/context.js';
import { Router } from '../../../protocol/router.js';
import type { HttpEnv } from '../env.js';
import { mcpRoute } from './mcp-route.js';

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function app() {
  const a = new Hono<HttpEnv>();
  a.post(
    '/mcp',
    async (c, next) => {
      c.set('requestId', 'r-9');
      c.set('rateHeaders', { RateLimit: '"calls";r=5;t=60' });
      c.set('payload', await c.req.json());
      await next();
    },
    mcpRoute({ router: new Router(testContext()) }),
  );
  return (body: unknown, headers: Record<string, string> = {}) =>
    a.request('/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('mcpRoute', () => {
  it('sends what the router answers, with the request id and rate-limit headers', async () => {
    const r = await app()({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('x-request-id')).toBe('r-9');
    expect(r.headers.get('ratelimit')).toBe('"calls";r=5;t=60');
    expect(await r.text()).toBe('{"result":{},"jsonrpc":"2.0","id":3}');
  });

  it('hands the standard MCP headers to the router (a contradicting Mcp-Name is -32020)', async () => {
    const send = app();
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doctrine_info', arguments: {}, _meta: ENVELOPE } };
    const std = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
    expect((await send(body, { ...std, 'mcp-name': 'doctrine_info' })).status).toBe(200);
    const bad = await send(body, { ...std, 'mcp-name': 'doctrine_get' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });

  it('answers a notification with 202 and no body', async () => {
    const r = await app()({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(r.status).toBe(202);
    expect(await r.text()).toBe('');
    expect(r.headers.get('x-request-id')).toBe('r-9');
  });
});
