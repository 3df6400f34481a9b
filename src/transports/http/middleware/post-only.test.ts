import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { HttpEnv } from '../env.js';
import { postOnly } from './post-only.js';

describe('postOnly', () => {
  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])('answers %s with 405, Allow: POST and a JSON-RPC error', async (method) => {
    const a = new Hono<HttpEnv>();
    a.use('*', async (c, next) => {
      c.set('requestId', 'r');
      await next();
    });
    a.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', postOnly());
    const r = await a.request('/mcp', { method });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.headers.get('x-request-id')).toBe('r');
    expect(((await r.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/stateless/),
    });
  });
});
