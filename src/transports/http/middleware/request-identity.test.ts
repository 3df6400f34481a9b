import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { blockListOf, parseCidr } from '../../../shared/ip-address.js';
import type { HttpEnv } from '../env.js';
import { requestIdentity } from './request-identity.js';

const SECRET = `${'a'.repeat(20)}proxy-secret-0123456789`;

function app(peer: string, options: { secret?: string | null; trusted?: string[] } = {}) {
  const a = new Hono<HttpEnv>();
  a.post(
    '/mcp',
    requestIdentity({
      proxySecret: options.secret === undefined ? SECRET : options.secret,
      trustedProxies: options.trusted ? blockListOf(options.trusted.map((c) => parseCidr(c)!)) : null,
      peerAddress: () => peer,
    }),
    (c) => c.json({ requestId: c.get('requestId'), clientIp: c.get('clientIp'), keyId: c.get('keyId') }),
  );
  return async (headers: Record<string, string>) => {
    const res = await a.request('/mcp', { method: 'POST', headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const forged = { 'x-request-id': 'proxy-req-1', 'x-forwarded-for': '198.51.100.7', 'x-signet-key-id': 'abc123' };
const fromProxy = { ...forged, 'x-signet-proxy-auth': SECRET };

describe('requestIdentity', () => {
  it('believes the request id, client address and key id from the proxy that presents the secret', async () => {
    expect(await app('10.0.0.5')(fromProxy)).toEqual({
      status: 200,
      body: { requestId: 'proxy-req-1', clientIp: '198.51.100.7', keyId: 'abc123' },
    });
  });

  it('refuses, with 403 and its own request id, anyone without the secret: a wrong one, none, or one from outside the proxy range', async () => {
    for (const [peer, headers, trusted] of [
      ['10.0.0.5', forged, undefined],
      ['10.0.0.5', { ...forged, 'x-signet-proxy-auth': `${SECRET}x` }, undefined],
      ['10.0.0.5', { ...forged, 'x-signet-proxy-auth': '' }, undefined],
      ['203.0.113.9', fromProxy, ['10.0.0.0/8']],
    ] as const) {
      const { status, body } = await app(peer, { trusted: trusted ? [...trusted] : undefined })(headers);
      expect(status).toBe(403);
      expect(body).toMatchObject({ error: { code: -32000, message: 'Forbidden: this server answers only its authenticated proxy' } });
      expect(JSON.stringify(body)).not.toContain(SECRET);
    }
  });

  it('accepts the proxy from inside its range when SIGNET_TRUSTED_PROXIES narrows it', async () => {
    expect((await app('10.0.0.5', { trusted: ['10.0.0.0/8'] })(fromProxy)).body).toMatchObject({ keyId: 'abc123' });
  });

  it('with no proxy configured (a local server), serves everyone as the socket peer and reads no identity header', async () => {
    const { status, body } = await app('127.0.0.1', { secret: null })(fromProxy);
    expect(status).toBe(200);
    expect(body).toMatchObject({ clientIp: '127.0.0.1', keyId: null });
    expect(body['requestId']).toMatch(UUID);
  });

  it('replaces a malformed request id or key id even from the proxy', async () => {
    const send = app('10.0.0.5');
    const { body } = await send({ 'x-signet-proxy-auth': SECRET, 'x-request-id': 'has space', 'x-signet-key-id': 'key-with-dash' });
    expect(body['requestId']).toMatch(UUID);
    expect(body['keyId']).toBeNull();
    expect((await send({ 'x-signet-proxy-auth': SECRET, 'x-request-id': 'r'.repeat(129) })).body['requestId']).toMatch(UUID);
  });

  it('gives every request its own id', async () => {
    const send = app('127.0.0.1', { secret: null });
    const ids = new Set(await Promise.all(Array.from({ length: 20 }, async () => (await send({})).body['requestId'])));
    expect(ids.size).toBe(20);
  });
});
