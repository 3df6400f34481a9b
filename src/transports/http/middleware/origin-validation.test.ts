import { describe, expect, it } from 'vitest';
import { middlewareApp } from '../../../../test/helpers/middleware-app.js';
import { checkOrigin, originValidation } from './origin-validation.js';

describe('originValidation', () => {
  const options = { allowedOrigins: ['https://app.example.com', 'http://localhost:6274'] };
  it.each([
    [undefined, null],
    ['', null],
    ['https://app.example.com', null],
    ['http://localhost:6274', null],
    ['http://localhost:9999', null], // loopback: any port, as the SDK v2 does
    ['https://localhost', null],
    ['http://127.0.0.1', null],
    ['http://[::1]:3000', null],
    ['https://app.example.com:8443', /not allowed/], // configured origins match exactly
    ['http://app.example.com', /not allowed/],
    ['https://evil.example.com', /not allowed/],
    ['http://localhost.evil.example', /not allowed/],
    ['http://127.0.0.1.evil.example', /not allowed/],
    ['null', /Invalid Origin/],
    ['chrome-extension://abcdef', /not allowed/],
    ['file://localhost', /not allowed/],
    ['ws://localhost:3000', /not allowed/],
  ])('Origin %j', (origin, expected) => {
    const reason = checkOrigin(options, origin);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });

  it('answers a foreign Origin with 403 before the handler runs, and lets requests without one through', async () => {
    const m = middlewareApp(originValidation({ allowedOrigins: [] }), { requestId: 'rid-2' });
    const send = (headers: Record<string, string>) => m.send(headers);
    const bad = await send({ origin: 'http://evil.example.com' });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Forbidden: Origin "http://evil.example.com" is not allowed (SIGNET_ALLOWED_ORIGINS)' },
      id: null,
    });
    expect(bad.headers.get('x-request-id')).toBe('rid-2');
    expect((await send({})).status).toBe(200);
    expect((await send({ origin: 'http://localhost:5173' })).status).toBe(200);
    expect(m.reached()).toBe(2);
  });
});
