import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '../client-ip.js';
import type { HttpEnv } from '../env.js';
import { requestIdentity } from './request-identity.js';

function app(peer: string, trusted: string[]) {
  const a = new Hono<HttpEnv>();
  a.post(
    '/mcp',
    requestIdentity({ trustedProxies: parseTrustedProxies(trusted), anyTrustedProxy: trusted.length > 0, peerAddress: () => peer }),
    (c) => c.json({ requestId: c.get('requestId'), clientIp: c.get('clientIp'), keyId: c.get('keyId') }),
  );
  return async (headers: Record<string, string>) =>
    (await a.request('/mcp', { method: 'POST', headers })).json() as Promise<Record<string, unknown>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const proxyHeaders = { 'x-request-id': 'proxy-req-1', 'x-forwarded-for': '198.51.100.7', 'x-signet-key-id': 'abc123' };

describe('requestIdentity', () => {
  it('believes the request id, client address and key id from a trusted proxy', async () => {
    expect(await app('10.0.0.5', ['10.0.0.0/8'])(proxyHeaders)).toEqual({
      requestId: 'proxy-req-1',
      clientIp: '198.51.100.7',
      keyId: 'abc123',
    });
  });

  it('ignores all three from anyone else, and mints its own request id', async () => {
    const id = await app('203.0.113.9', ['10.0.0.0/8'])(proxyHeaders);
    expect(id).toMatchObject({ clientIp: '203.0.113.9', keyId: null });
    expect(id['requestId']).toMatch(UUID);
    expect((await app('203.0.113.9', [])(proxyHeaders))['requestId']).toMatch(UUID);
  });

  it('replaces a malformed request id or key id even from a trusted proxy', async () => {
    const id = await app('10.0.0.5', ['10.0.0.0/8'])({ 'x-request-id': 'has space', 'x-signet-key-id': 'key-with-dash' });
    expect(id['requestId']).toMatch(UUID);
    expect(id['keyId']).toBeNull();
    expect((await app('10.0.0.5', ['10.0.0.0/8'])({ 'x-request-id': 'r'.repeat(129) }))['requestId']).toMatch(UUID);
  });

  it('gives every request its own id', async () => {
    const send = app('127.0.0.1', []);
    const ids = new Set(await Promise.all(Array.from({ length: 20 }, async () => (await send({}))['requestId'])));
    expect(ids.size).toBe(20);
  });
});
