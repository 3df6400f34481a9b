import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { HttpEnv, RequestEvent } from '../env.js';
import { outcomeOf, requestReport } from './request-report.js';

describe('requestReport', () => {
  it.each([
    [200, 'ok'],
    [202, 'ok'],
    [400, 'rejected'],
    [403, 'rejected'],
    [429, 'rate_limited'],
    [500, 'error'],
    [503, 'limiter_error'],
  ] as const)('status %i is %s', (status, outcome) => expect(outcomeOf(status)).toBe(outcome));

  it('reports each request once, after the response, refusals and failures included', async () => {
    const events: RequestEvent[] = [];
    const a = new Hono<HttpEnv>();
    a.use('/mcp', requestReport({ onRequest: (e) => events.push(e) }));
    a.post('/mcp', (c) => {
      c.set('requestId', 'r-1');
      c.set('rpcMethod', 'tools/call');
      c.set('route', { status: 200, body: '{}', era: 'modern', tool: 'doctrine_get', cached: true });
      return c.json({}, 200);
    });
    a.put('/mcp', (c) => c.json({}, 403));
    a.delete('/mcp', () => {
      throw new Error('boom');
    });
    a.onError((_e, c) => c.json({}, 500));
    await a.request('/mcp', { method: 'POST' });
    await a.request('/mcp', { method: 'PUT' });
    await a.request('/mcp', { method: 'DELETE' });
    expect(events.map((e) => [e.requestId, e.status, e.outcome, e.tool, e.era, e.cached, e.rpcMethod])).toEqual([
      ['r-1', 200, 'ok', 'doctrine_get', 'modern', true, 'tools/call'],
      ['', 403, 'rejected', null, null, false, null],
      ['', 500, 'error', null, null, false, null],
    ]);
    for (const e of events) expect(e.durationMs).toBeGreaterThanOrEqual(0);
  });
});
