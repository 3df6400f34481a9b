// API key lifecycle through the reference proxy in key-store mode, for both targets.
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, rpc } from '../helpers/http-server.js';

export interface KeyStackTarget {
  baseUrl: string;
  clientAddress?: string;
  /** Runs `signet keys ...` against the store the proxy reads. */
  keys(args: string[]): Promise<{ code: number | null; out: string; err: string }>;
  readStore(): Promise<string>;
  writeStore(content: string): Promise<void>;
  serverLogs(): Promise<string>;
  proxyLogs(): Promise<string>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function defineKeyLifecycleSuite(name: string, start: () => Promise<KeyStackTarget>): void {
  let t: KeyStackTarget;
  // One keep-alive connection: key changes must apply without reconnecting or restarting nginx.
  let agent: Agent;
  const sockets = new Set<unknown>();

  const ping = (key: string | null, extra: Record<string, string> = {}) =>
    new Promise<{ status: number; auth: string | undefined; reused: boolean }>((resolve, reject) => {
      const u = new URL(`${t.baseUrl}/mcp`);
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...extra };
      if (key !== null) headers['authorization'] = `Bearer ${key}`;
      const req = httpRequest(
        { host: u.hostname, port: u.port, path: '/mcp', method: 'POST', headers, agent, localAddress: t.clientAddress },
        (res) => {
          sockets.add(res.socket);
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, auth: res.headers['www-authenticate'] as string | undefined, reused: req.reusedSocket }),
          );
        },
      );
      req.on('error', reject);
      req.end(rpc('ping'));
    });

  const create = async (keyName: string, extra: string[] = []) => {
    const r = await t.keys(['create', '--name', keyName, ...extra]);
    expect(r.code, r.err).toBe(0);
    return r.out.trim();
  };

  /** Polls until `key` gets `status`; returns how long that took. */
  const until = async (key: string, status: number, limitMs: number) => {
    const started = Date.now();
    for (;;) {
      if ((await ping(key)).status === status) return Date.now() - started;
      if (Date.now() - started > limitMs) return Infinity;
      await sleep(100);
    }
  };

  describe(`${name}: API key lifecycle at the proxy (hashed key store)`, () => {
    const minted: string[] = [];
    beforeAll(async () => {
      t = await start();
      agent = new Agent({ keepAlive: true, maxSockets: 1 });
    });
    afterAll(async () => {
      agent?.destroy();
      await t?.stop();
    });

    it('accepts every active key of the store and passes the key id (never the key) to the server', async () => {
      const a = await create('alice');
      const b = await create('bob');
      minted.push(a, b);
      expect((await ping(a)).status).toBe(200);
      expect((await ping(b)).status).toBe(200);
      let ids: string[] = [];
      for (let i = 0; i < 30 && ids.length < 2; i++) {
        await sleep(200);
        const logs = await t.serverLogs();
        ids = [a, b].map((k) => k.slice(5, 13)).filter((id) => logs.includes(`"key_id":"${id}"`));
      }
      expect(ids).toHaveLength(2);
      const forged = await ping(a, { 'x-signet-key-id': 'Forged00' });
      expect(forged.status).toBe(200);
    });

    it('refuses a revoked key within 5 s, while a long series with another key on the same connection sees no error', async () => {
      const a = await create('to-revoke');
      const b = await create('steady');
      minted.push(a, b);
      expect((await ping(a)).status).toBe(200);
      const statuses: number[] = [];
      let reused = 0;
      let running = true;
      const series = (async () => {
        while (running) {
          const r = await ping(b);
          statuses.push(r.status);
          if (r.reused) reused++;
          await sleep(20);
        }
      })();
      await sleep(300);
      const revoked = await t.keys(['revoke', a.slice(5, 13)]);
      expect(revoked.code, revoked.err).toBe(0);
      const took = await until(a, 401, 5000);
      await sleep(300);
      running = false;
      await series;
      expect(took).toBeLessThanOrEqual(5000);
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(reused).toBeGreaterThan(statuses.length / 2);
    });

    it('rotates with a grace period: old and new both work, then only the new one', async () => {
      const old = await create('rotating');
      minted.push(old);
      const r = await t.keys(['rotate', old.slice(5, 13), '--grace', '4s']);
      expect(r.code, r.err).toBe(0);
      const fresh = r.out.trim();
      minted.push(fresh);
      expect((await ping(old)).status).toBe(200);
      expect((await ping(fresh)).status).toBe(200);
      expect(await until(old, 401, 9000)).toBeLessThan(Infinity);
      expect((await ping(fresh)).status).toBe(200);
    });

    it('refuses an expired key', async () => {
      const short = await create('short-lived', ['--expires', '3s']);
      minted.push(short);
      expect((await ping(short)).status).toBe(200);
      expect(await until(short, 401, 8000)).toBeLessThan(Infinity);
    });

    it('says why a revoked or an expired key is refused, and names its id (never the key) in the proxy log', async () => {
      const revoked = await create('said-revoked');
      const expired = await create('said-expired', ['--expires', '2s']);
      minted.push(revoked, expired);
      expect((await t.keys(['revoke', revoked.slice(5, 13)])).code).toBe(0);
      expect(await until(expired, 401, 8000)).toBeLessThan(Infinity);
      const body = async (key: string) =>
        (
          await rawRequest(`${t.baseUrl}/mcp`, {
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body: rpc('ping'),
            localAddress: t.clientAddress,
          })
        ).json() as { error: string; message: string };
      expect(await body(revoked)).toEqual({ error: 'unauthorized', message: 'this API key is revoked: ask for a new one' });
      expect((await body(expired)).message).toMatch(/^this API key has expired/);
      // Each nginx worker flushes its own access-log buffer (at most a second late).
      const seen = (logs: string) =>
        logs.includes(`"auth":"expired","key_id":"${expired.slice(5, 13)}"`) &&
        logs.includes(`"auth":"revoked","key_id":"${revoked.slice(5, 13)}"`);
      let logs = '';
      for (let i = 0; i < 30 && !seen(logs); i++) {
        await sleep(200);
        logs = await t.proxyLogs();
      }
      expect(logs).toContain(`"auth":"revoked","key_id":"${revoked.slice(5, 13)}"`);
      expect(logs).toContain(`"auth":"expired","key_id":"${expired.slice(5, 13)}"`);
    });

    it('refuses a key with a wrong checksum without reading the store, and fails closed when the store is broken', async () => {
      const good = await create('store-check');
      minted.push(good);
      const original = await t.readStore();
      const badChecksum = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
      try {
        for (const broken of [original.slice(0, Math.floor(original.length / 2)), 'not json at all', '{"format":"signet-keys/1"}']) {
          await t.writeStore(broken);
          const valid = await ping(good);
          expect(valid.status).toBe(503); // fail closed: never forwarded
          expect((await ping(minted[1]!)).status).toBe(503);
          const typo = await ping(badChecksum);
          expect(typo.status).toBe(401); // decided before the store is read
          expect(typo.auth).toBe('Bearer realm="signet"');
        }
        expect(await t.proxyLogs()).toMatch(/key store \S+ (cannot be read|cannot be parsed|is not a whole signet-keys\/1 store)/);
        // The access log is written in batches (at most a second late).
        let logs = '';
        for (let i = 0; i < 30 && !/"auth":"checksum"/.test(logs); i++) {
          await sleep(200);
          logs = await t.proxyLogs();
        }
        expect(logs).toMatch(/"auth":"checksum"/);
      } finally {
        await t.writeStore(original);
      }
      expect((await ping(good)).status).toBe(200);
    });

    it('never writes a key or a key hash to any log, nor a warning for requests outside /mcp', async () => {
      // Outside /mcp the key check never runs: its variables must still be logged without a
      // warning (nginx's "using uninitialized variable" line quotes the whole request line).
      for (const path of [
        `/healthz?access_token=${minted[0]}`,
        '/healthz',
        `/nope/${minted[0]}`,
        '/.well-known/oauth-protected-resource',
      ]) {
        await fetch(`${t.baseUrl}${path}`).then((r) => r.arrayBuffer());
      }
      await sleep(1500); // the proxy's access log flushes every second
      const logs = (await t.serverLogs()) + (await t.proxyLogs());
      const store = JSON.parse(await t.readStore()) as { keys: { hash: string }[] };
      for (const key of minted) {
        expect(logs).not.toContain(key);
        expect(logs).not.toContain(key.slice(13, 56));
      }
      for (const k of store.keys) expect(logs).not.toContain(k.hash.slice(7));
      expect(logs).not.toMatch(/sgnk_[0-9A-Za-z]{20}/);
      expect(await t.proxyLogs()).not.toContain('uninitialized');
    });
  });
}
