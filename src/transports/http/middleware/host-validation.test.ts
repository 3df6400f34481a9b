import { describe, expect, it } from 'vitest';
import { middlewareApp } from '../../../../test/helpers/middleware-app.js';
import { loadConfig } from '../../../config.js';
import { checkHost, hostValidation, LOOPBACK_HOSTNAMES } from './host-validation.js';

const allowed = new Set([...LOOPBACK_HOSTNAMES, 'signet.example.com']);

function app(allowedHostnames: ReadonlySet<string>) {
  const m = middlewareApp(hostValidation({ allowedHostnames }), { requestId: 'rid-1' });
  return { send: (host: string) => m.send({ host }), reached: m.reached };
}

describe('hostValidation', () => {
  it.each([
    ['localhost:3000', null],
    ['127.0.0.1', null],
    ['[::1]:8080', null],
    ['SIGNET.example.com:443', null],
    ['evil.example.com', /"evil\.example\.com" is not allowed/],
    ['127.0.0.1.evil.example', /not allowed/],
    ['localhost.evil.example', /not allowed/],
    ['', /Missing Host/],
    ['exa mple', /Invalid Host/],
  ])('Host %j', (host, expected) => {
    const reason = checkHost(allowed, host);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });

  it('allows the loopback names and SIGNET_ALLOWED_HOSTS, whatever the bind (stricter than the SDK, which checks loopback binds only)', () => {
    expect(loadConfig({}).http.allowedHostnames).toEqual(new Set(LOOPBACK_HOSTNAMES));
    expect(loadConfig({ SIGNET_ALLOWED_HOSTS: 'Signet.Example.com:8443, [fd00::1]' }).http.allowedHostnames).toEqual(
      new Set([...LOOPBACK_HOSTNAMES, 'signet.example.com', '[fd00::1]']),
    );
  });

  it('answers a foreign Host with 403 and a JSON-RPC error, before the handler runs', async () => {
    const a = app(allowed);
    const bad = await a.send('evil.example.com');
    expect(bad.status).toBe(403);
    expect(await bad.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Forbidden: Host "evil.example.com" is not allowed (SIGNET_ALLOWED_HOSTS)' },
      id: null,
    });
    expect(bad.headers.get('x-request-id')).toBe('rid-1');
    expect((await a.send('localhost:1')).status).toBe(200);
    // A remembered good value does not let a different one through.
    expect((await a.send('localhost:1')).status).toBe(200);
    expect((await a.send('evil.example.com:1')).status).toBe(403);
    expect(a.reached()).toBe(2);
  });

  it('remembers only a bounded number of allowed Host values and still checks the rest', async () => {
    const a = app(allowed);
    for (let port = 1; port <= 100; port++) expect((await a.send(`localhost:${port}`)).status).toBe(200);
    expect((await a.send('evil.example.com')).status).toBe(403);
  });
});
