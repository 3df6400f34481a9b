import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { HttpEnv } from '../env.js';
import { checkHost, hostValidation, LOOPBACK_HOSTNAMES } from './host-validation.js';

const allowed = new Set([...LOOPBACK_HOSTNAMES, 'signet.example.com']);

describe('hostValidation', () => {
  it.each([
    ['localhost:3000', null],
    ['127.0.0.1', null],
    ['[::1]:8080', null],
    ['SIGNET.example.com:443', null],
    ['evil.example.com', /"evil\.example\.com" is not allowed/],
    ['127.0.0.1.evil.example', /not allowed/],
    ['', /Missing Host/],
    ['exa mple', /Invalid Host/],
  ])('Host %j', (host, expected) => {
    const reason = checkHost(allowed, host);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });

  it('answers a foreign Host with 403 and a JSON-RPC error, before the handler runs', async () => {
    const app = new Hono<HttpEnv>();
    let reached = 0;
    app.use('*', async (c, next) => {
      c.set('requestId', 'rid-1');
      await next();
    });
    app.post('/mcp', hostValidation(() => allowed), (c) => {
      reached++;
      return c.text('ok');
    });
    const bad = await app.request('http://x/mcp', { method: 'POST', headers: { host: 'evil.example.com' } });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Host "evil.example.com" is not allowed (SIGNET_ALLOWED_HOSTS)' }, id: null });
    expect(bad.headers.get('x-request-id')).toBe('rid-1');
    expect((await app.request('http://x/mcp', { method: 'POST', headers: { host: 'localhost:1' } })).status).toBe(200);
    expect(reached).toBe(1);
  });
});
