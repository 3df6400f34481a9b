import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../log.js';
import type { HttpEnv } from '../env.js';
import { rateLimit } from './middleware.js';
import { memoryStore } from './store.js';

function app(perMinute: number, other: number) {
  const store = memoryStore();
  const a = new Hono<HttpEnv>();
  a.post(
    '/mcp',
    async (c, next) => {
      c.set('requestId', 'r');
      c.set('clientIp', c.req.header('x-test-ip') ?? '1.1.1.1');
      c.set('keyId', null);
      c.set('payload', await c.req.json());
      c.set('limitedBy', null);
      await next();
    },
    rateLimit({
      calls: store.policy('calls', perMinute),
      requests: store.policy('requests', other),
      keyCalls: null,
      keyRequests: null,
      ipGuard: null,
      ipv6Prefix: 64,
      maxBatch: 32,
      maxBodyBytes: 1024 * 1024,
      log: createLogger('silent'),
    }),
    (c) => c.json({ ok: true, headers: c.get('rateHeaders') }),
  );
  return a;
}
const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'doctrine_info' } });
const send = (a: Hono<HttpEnv>, body: unknown, ip = '1.1.1.1') =>
  a.request('/mcp', { method: 'POST', body: JSON.stringify(body), headers: { 'x-test-ip': ip } });

describe('rateLimit', () => {
  it('charges tools/call to the calls budget, one point per call in a batch, and refuses with 429 and Retry-After', async () => {
    const a = app(3, 100);
    expect((await send(a, [call(1), call(2)])).status).toBe(200);
    const third = await send(a, call(3));
    expect(((await third.json()) as { headers: Record<string, string> }).headers['RateLimit']).toBe('"calls";r=0;t=60');
    const limited = await send(a, call(4));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32000, data: { retry_after: expect.any(Number) } },
    });
    // Another client address has its own budget; cheap requests have theirs.
    expect((await send(a, call(5), '2.2.2.2')).status).toBe(200);
    expect((await send(a, { jsonrpc: '2.0', id: 6, method: 'tools/list' })).status).toBe(200);
  });

  it('charges other requests to their own budget', async () => {
    const a = app(100, 1);
    expect((await send(a, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
    const limited = await send(a, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(
      /too many requests per minute for this client IP/,
    );
  });
});
