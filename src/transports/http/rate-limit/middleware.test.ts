import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../log.js';
import type { HttpEnv } from '../env.js';
import { chargeRefused, rateLimit } from './middleware.js';
import { memoryStore } from './store.js';

function limits(perMinute: number, other: number) {
  const store = memoryStore();
  return {
    calls: store.policy('calls', perMinute),
    requests: store.policy('requests', other),
    keyCalls: null,
    keyRequests: null,
    ipGuard: null,
    ipv6Prefix: 64,
    maxBodyBytes: 1024 * 1024,
    log: createLogger('silent'),
  };
}

function app(perMinute: number, other: number) {
  const options = limits(perMinute, other);
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
    rateLimit(options),
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

  it('charges every message of a batch too large to run: the router refuses it, the work of reading it was done (M2)', async () => {
    const a = app(40, 1000);
    const batch = Array.from({ length: 33 }, (_, i) => call(i));
    expect((await send(a, batch)).status).toBe(200); // charged 33 of 40, then handed to the router
    const limited = await send(a, batch);
    expect(limited.status).toBe(429);
  });

  it('charges a body refused before it parsed as one tool call, and answers 429 once that budget is spent (M2)', async () => {
    const options = limits(2, 1000);
    const charge = chargeRefused(options);
    const a = new Hono<HttpEnv>();
    a.post('/mcp', async (c) => {
      c.set('requestId', 'r');
      c.set('clientIp', '1.1.1.1');
      c.set('keyId', null);
      c.set('subject', null);
      c.set('charged', c.req.header('x-charged') === '1');
      c.set('limitedBy', null);
      return (await charge(c)) ?? c.json({ refused: 'as the body was' }, 400);
    });
    const refuse = (headers: Record<string, string> = {}) => a.request('/mcp', { method: 'POST', body: '{', headers });
    // Charged before its body by Mcp-Method: not twice.
    expect((await refuse({ 'x-charged': '1' })).status).toBe(400);
    expect((await refuse()).status).toBe(400);
    expect((await refuse()).status).toBe(400);
    const limited = await refuse();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({
      id: null,
      error: { message: expect.stringMatching(/too many tool calls per minute for this client IP/) },
    });
  });
});
