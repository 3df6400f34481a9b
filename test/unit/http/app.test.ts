import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import type { RequestEvent } from '../../../src/transports/http/app.js';
import type { Policy } from '../../../src/transports/http/rate-limit/policy.js';
import { httpApp as app, memoryPolicy } from '../../helpers/http-app.js';

/** A limiter whose store is down: consume() rejects with an Error, not a RateLimiterRes. */
class BrokenStoreLimiter extends RateLimiterMemory {
  override consume(): Promise<never> {
    return Promise.reject(new Error('ECONNREFUSED 10.0.0.9:6379'));
  }
}

const post = (body: string) =>
  new Request('http://127.0.0.1:3000/mcp', {
    method: 'POST',
    headers: { host: '127.0.0.1:3000', 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
const call = JSON.stringify({ jsonrpc: '2.0', id: 'x-1', method: 'tools/call', params: { name: 'doctrine_info', arguments: {} } });

describe('HTTP app (in process)', () => {
  it('tells a limiter store failure apart from a limit hit: 503 with Retry-After, never 429, and logs it', async () => {
    const broken: Policy = { name: 'calls', perMinute: 60, limiter: new BrokenStoreLimiter({ points: 60, duration: 60 }) };
    const events: RequestEvent[] = [];
    const res = await app({ calls: broken }, events).request(post(call));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = (await res.json()) as { id: string; error: { message: string } };
    expect(body.id).toBe('x-1');
    expect(body.error.message).toMatch(/rate limiter cannot reach its store/);
    expect(body.error.message).not.toMatch(/6379|ECONNREFUSED/);
    expect(events[0]).toMatchObject({ outcome: 'limiter_error', status: 503 });
  });

  it('reports each request once, with tool, outcome and whether it came from the cache', async () => {
    const events: RequestEvent[] = [];
    const a = app({}, events);
    expect((await a.request(post(call))).status).toBe(200);
    expect((await a.request(post(call))).status).toBe(200);
    expect(events.map((e) => [e.tool, e.outcome, e.cached, e.rpcMethod])).toEqual([
      ['doctrine_info', 'ok', false, 'tools/call'],
      ['doctrine_info', 'ok', true, 'tools/call'],
    ]);
  });

  it('says not ready while starting or draining', async () => {
    let ready = false;
    const a = app({ isReady: () => ready });
    expect((await a.request('/readyz')).status).toBe(503);
    ready = true;
    expect((await a.request('/readyz')).status).toBe(200);
    expect((await a.request('/healthz')).status).toBe(200);
  });

  it('disables a limit set to 0 and sends no RateLimit headers then', async () => {
    const res = await app({ calls: memoryPolicy('calls', 0) }).request(post(call));
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBeNull();
  });
});
