// The fourth penetration test's edge findings (issue 28: M1, M5, M6, L1, L3, L4), one suite for
// both targets: the process stack (Debian's nginx, the built auth check and server) and the
// compose stack. Each case is the tester's reproduction, asserted the way a user would see it.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { rawRequest } from '../helpers/http-server.js';

/** Tokens from the target's issuer: the claims and header a case needs, signed as asked. */
export interface EdgeIssuer {
  /** A token signed by the issuer's published key (`forge`: the same kid, another key; `kid`: an unknown kid, another key). */
  token(
    claims?: Record<string, unknown>,
    header?: Record<string, unknown>,
    how?: { forge?: boolean; unknownKid?: string },
  ): Promise<string>;
  /** JWKS fetches the issuer has served so far. */
  jwksFetches(): Promise<number>;
  /** 'error': the JWKS endpoint answers 500, as an issuer outage does. */
  setJwks(mode: 'ok' | 'error'): Promise<void>;
}

export interface EdgeTarget {
  baseUrl: string;
  /** An active API key (keys+oauth). */
  key: string;
  issuer: EdgeIssuer;
  /** The seconds between two key fetches for an unknown kid, as the target runs the check. */
  jwksCooldownSeconds: number;
  /** Where a test's requests come from (process stack: its own 127.0.0.x; compose: the host, the gateway address). */
  addressFor(test: string): string | undefined;
  /** The auth check's own listener, reached without the proxy (what the pen test reached from the Docker host). */
  authCheckUrl: string;
  /** Everything the auth check logged so far. */
  authCheckLogs(): Promise<string>;
  stop(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const call = (name: string, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Refusals the auth check logged after checking a credential (never the ones the limit answered). */
const checkedRefusals = (logs: string) => (logs.match(/"msg":"(token|key|credential) refused"/g) ?? []).length;

export function defineEdgeFindingsSuite(name: string, start: () => Promise<EdgeTarget>): void {
  describe(`${name}: the pen test's edge findings (issue 28)`, () => {
    let t: EdgeTarget;
    beforeAll(async () => {
      t = await start();
    }, 600_000);
    afterAll(async () => {
      await t?.stop();
    });
    const post = (test: string, body: string, headers: Record<string, string> = {}) =>
      rawRequest(`${t.baseUrl}/mcp`, { headers: { ...JSON_HEADERS, ...headers }, body, localAddress: t.addressFor(test) });
    const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

    it('L1: the auth check answers only its proxy: a valid token sent to it directly gets no principal and no scopes', async () => {
      const token = await t.issuer.token({ sub: 'l1-victim', scope: 'signet:read signet:evaluate' });
      const direct = await rawRequest(`${t.authCheckUrl}/check`, { method: 'GET', headers: bearer(token) });
      expect(direct.status).toBe(403);
      expect(direct.headers['x-signet-principal']).toBeUndefined();
      expect(direct.headers['x-signet-scopes']).toBeUndefined();
      // Through the proxy the same token is served.
      expect((await post('l1', call('doctrine_info'), bearer(token))).status).toBe(200);
    });

    it('L3: access tokens only: an ID-token-shaped JWT and a subject that is not a string are refused', async () => {
      const cases: [string, string][] = [
        [
          'an ID token (typ JWT, nonce, at_hash)',
          await t.issuer.token(
            { sub: 'l3-id', nonce: 'n-0S6_WzA2Mj', at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q', azp: 'test-client' },
            { typ: 'JWT' },
          ),
        ],
        ['sub an object', await t.issuer.token({ sub: { id: 'bob' } })],
        ['sub another object', await t.issuer.token({ sub: { id: 'carol' } })],
        ['sub a number', await t.issuer.token({ sub: 42 })],
      ];
      for (const [why, token] of cases) {
        const r = await post('l3', call('doctrine_info'), bearer(token));
        expect(r.status, why).toBe(401);
        expect(String(r.headers['www-authenticate']), why).toMatch(/^Bearer error="invalid_token"/);
      }
    });

    it('M6: while the JWKS endpoint fails, a token under an unknown kid is 503 (never invalid_token), the issuer is not hammered, cached keys keep working', async () => {
      const valid = await t.issuer.token({ sub: 'm6-before' });
      expect((await post('m6', call('doctrine_info'), bearer(valid))).status).toBe(200);
      await t.issuer.setJwks('error');
      try {
        await sleep(t.jwksCooldownSeconds * 1000 + 300);
        const before = await t.issuer.jwksFetches();
        const statuses: number[] = [];
        for (let i = 0; i < 30; i++) {
          const forged = await t.issuer.token({ sub: `m6-${i}` }, {}, { unknownKid: `rotated-${i}` });
          statuses.push((await post('m6', call('doctrine_info'), bearer(forged))).status);
        }
        expect(statuses.filter((s) => s !== 503)).toEqual([]);
        expect((await t.issuer.jwksFetches()) - before).toBeLessThanOrEqual(2);
        // A new token under the key the check already has: served from the last good key set.
        const fresh = await t.issuer.token({ sub: 'm6-during' });
        expect((await post('m6', call('doctrine_info'), bearer(fresh))).status).toBe(200);
      } finally {
        await t.issuer.setJwks('ok');
      }
    });

    it('L4: eleven self-registered clients spending their budgets from one address do not lock out a key holder there', async () => {
      const statuses: number[] = [];
      for (let c = 0; c < 11; c++) {
        // Client credentials: the client is its own subject (RFC 9068 §2.2).
        const token = await t.issuer.token({ sub: `dcr-client-${c}`, client_id: `dcr-client-${c}` });
        for (let i = 0; i < 60; i++) statuses.push((await post('l4', call('doctrine_info', i), bearer(token))).status);
      }
      // The minted subjects spent the subjects' guard of the address (other tests' subjects may have
      // spent some of it first)...
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(500);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      // ...and the key holder there is served, and so is a person signed in through an app.
      const victim = await post('l4', call('doctrine_info', 'victim'), bearer(t.key));
      expect(victim.status).toBe(200);
      const person = await t.issuer.token({ sub: 'person-l4', client_id: 'web-app' });
      expect((await post('l4', call('doctrine_info', 'person'), bearer(person))).status).toBe(200);
    }, 120_000);

    it('M1: slow bodies on /healthz and /verify without a key neither hold the address nor starve a key holder there', async () => {
      const url = new URL(t.baseUrl);
      const address = t.addressFor('m1');
      const sockets: Socket[] = [];
      const answered: number[] = [];
      const opened = Date.now();
      try {
        for (let i = 0; i < 70; i++) {
          const path = i % 2 === 0 ? '/healthz' : '/verify';
          const s = await new Promise<Socket>((resolve, reject) => {
            const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: address }, () => resolve(socket));
            socket.on('error', reject);
          });
          s.on('error', () => undefined);
          s.once('data', () => answered.push(Date.now() - opened));
          s.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: 1000\r\n\r\nx`);
          sockets.push(s);
        }
        const trickle = setInterval(() => {
          for (const s of sockets) if (!s.destroyed) s.write('x');
        }, 2000);
        const statuses: number[] = [];
        try {
          for (let i = 0; i < 40; i++) {
            statuses.push((await post('m1', JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }), bearer(t.key))).status);
            await sleep(100);
          }
        } finally {
          clearInterval(trickle);
        }
        expect(statuses.filter((s) => s !== 200)).toEqual([]);
        // Every slow body was answered (refused) without waiting for it.
        expect(answered.length).toBe(70);
      } finally {
        for (const s of sockets) s.destroy();
      }
    }, 60_000);

    it('M5: past the refused-credential limit nothing is checked: forged tokens and unknown keys get 429 without reaching a check', async () => {
      const forged = await Promise.all(Array.from({ length: 50 }, (_, i) => t.issuer.token({ sub: `m5-${i}` }, {}, { forge: true })));
      const before = checkedRefusals(await t.authCheckLogs());
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) {
        // Alternately a token with the real kid and a bad signature, and a well-formed key the store never had.
        const credential = i % 2 === 0 ? forged[i / 2]! : newApiKey();
        statuses.push((await post('m5', call('doctrine_info', i), bearer(credential))).status);
      }
      const refused = statuses.filter((s) => s === 401).length;
      expect(refused).toBeGreaterThanOrEqual(10);
      expect(refused + statuses.filter((s) => s === 429).length).toBe(100);
      await sleep(1200);
      const checked = checkedRefusals(await t.authCheckLogs()) - before;
      // Each refusal that got a 401 was checked; none of the 429s was.
      expect(checked).toBeGreaterThan(0);
      expect(checked).toBeLessThanOrEqual(refused);
    });
  });
}
