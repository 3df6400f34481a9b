// `signet auth-check` on its own: it answers only its proxy, warns ahead of every API key's
// expiry (issue 29: a log line and a metric per key id), and says why a store cannot be used.

import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../../src/api-keys/store.js';
import { type AuthCheck, startAuthCheck } from '../helpers/auth-check-process.js';
import { rawRequest } from '../helpers/http-server.js';
import { startJwtIssuer } from '../helpers/jwt-issuer.js';
import { selfSignedCert } from '../helpers/openssl.js';
import { CLI } from '../helpers/paths.js';
import { proxySecretFile } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const DAY = 86_400_000;

describe('signet auth-check', () => {
  const started: AuthCheck[] = [];
  afterAll(async () => {
    for (const a of started) await a.stop();
  });

  it('warns ahead of each key expiry in its log and its metrics, and names the keys by id only', async () => {
    const dir = tempDir('signet-auth-check-');
    const store = new KeyStore(join(dir, 'keys.json'));
    const soon = await store.create('soon', new Date(Date.now() + 3 * DAY));
    const later = await store.create('later', new Date(Date.now() + 60 * DAY));
    const forever = await store.create('forever', null);
    const a = await startAuthCheck({ SIGNET_KEY_STORE: store.path, SIGNET_METRICS_PORT: '0', SIGNET_KEY_EXPIRY_WARNING_DAYS: '14' });
    started.push(a);
    const deadline = Date.now() + 5000;
    while (!/auth check metrics listening/.test(a.logs()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const warning = a
      .logs()
      .split('\n')
      .find((l) => l.includes('expires in'));
    expect(warning).toBeDefined();
    expect(JSON.parse(warning!)).toMatchObject({ level: 'warn', key_id: soon.record.id, days_left: 2 });
    expect(a.logs()).not.toContain(`"key_id":"${later.record.id}"`);
    const port = Number(/"metrics_port":(\d+)/.exec(a.logs())![1]);
    const metrics = (await rawRequest(`http://127.0.0.1:${port}/metrics`, { method: 'GET' })).body;
    expect(metrics).toMatch(
      new RegExp(
        `signet_api_key_expiry_timestamp_seconds\\{key_id="${soon.record.id}"\\} ${Math.floor(Date.parse(soon.record.expires_at!) / 1000)}`,
      ),
    );
    expect(metrics).toContain(`key_id="${later.record.id}"`);
    expect(metrics).not.toContain(`key_id="${forever.record.id}"`);
    expect(metrics).toMatch(/^signet_api_keys_expiring 1$/m);
    for (const k of [soon.key, later.key]) expect(a.logs() + metrics).not.toContain(k);
  });

  it('answers only a request with the proxy secret, and refuses to listen beyond loopback without one', async () => {
    const dir = tempDir('signet-auth-check-');
    const store = new KeyStore(join(dir, 'keys.json'));
    const { key } = await store.create('k', null);
    const a = await startAuthCheck({ SIGNET_KEY_STORE: store.path, SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir) });
    started.push(a);
    const ask = (headers: Record<string, string>) => rawRequest(`http://127.0.0.1:${a.port}/check`, { method: 'GET', headers });
    const bare = await ask({ authorization: `Bearer ${key}` });
    expect(bare.status).toBe(403);
    expect(bare.headers['x-signet-key-id']).toBeUndefined();
    const secret = readFileSync(proxySecretFile(dir), 'utf8').trim();
    const asked = await ask({ authorization: `Bearer ${key}`, 'x-signet-proxy-auth': secret });
    expect(asked.status).toBe(204);
    expect(asked.headers['x-signet-key-id']).toBe(key.slice(5, 13));
    const refused = spawnSync(process.execPath, [CLI, 'auth-check'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        SIGNET_KEY_STORE: store.path,
        SIGNET_AUTH_CHECK_HOST: '0.0.0.0',
        SIGNET_AUTH_CHECK_PORT: '0',
      },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /SIGNET_AUTH_CHECK_HOST is "0\.0\.0\.0", not loopback: the auth check then needs SIGNET_PROXY_SECRET_FILE/,
    );
  });

  it('says why a store is unusable (never "no keys") and answers unavailable (503 at the proxy), never a refusal', async () => {
    const dir = tempDir('signet-auth-check-');
    const path = join(dir, 'keys.json');
    const store = new KeyStore(path);
    const { key } = await store.create('k', null);
    writeFileSync(path, 'not json');
    chmodSync(path, 0o600);
    const a = await startAuthCheck({ SIGNET_KEY_STORE: path });
    started.push(a);
    const r = await rawRequest(`http://127.0.0.1:${a.port}/check`, { method: 'GET', headers: { authorization: `Bearer ${key}` } });
    expect(r.status).toBe(403);
    expect(r.headers['x-signet-auth']).toBe('unavailable');
    expect(a.logs()).toMatch(/key store \S+ cannot be parsed \(Key store \S+ is corrupted \(not JSON\)/);
    expect((await rawRequest(`http://127.0.0.1:${a.port}/healthz`, { method: 'GET' })).status).toBe(503);
  });

  it('says a store it may not read "cannot be read (permission denied)", never "no keys", run as another uid (setpriv)', async () => {
    expect(process.getuid?.(), 'the test runs as root, to start the auth check as uid 65534').toBe(0);
    const dir = tempDir('signet-auth-check-');
    const store = new KeyStore(join(dir, 'keys', 'keys.json'));
    const { key } = await store.create('k', null);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    // The folders may be searched, the store (root's, 0600) not read; then the folder not searched either.
    chmodSync(dir, 0o755);
    for (const folderMode of [0o755, 0o700]) {
      chmodSync(join(dir, 'keys'), folderMode);
      const a = await startAuthCheck({ SIGNET_KEY_STORE: store.path, HOME: '/tmp' }, { uid: 65534, gid: 65534 });
      started.push(a);
      const r = await rawRequest(`http://127.0.0.1:${a.port}/check`, { method: 'GET', headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(403);
      expect(r.headers['x-signet-auth']).toBe('unavailable');
      expect((await rawRequest(`http://127.0.0.1:${a.port}/healthz`, { method: 'GET' })).status).toBe(503);
      expect(a.logs()).toMatch(/key store \S+ cannot be read \(permission denied: .*run the auth check as that user \(uid 65534 here\)\)/);
      expect(a.logs()).not.toMatch(/no API key|create keys|no such file/);
      await a.stop();
    }
  });

  it("trusts a provider's private CA (SIGNET_OAUTH_CA_FILE) for its metadata and keys, and without it refuses the provider", async () => {
    const dir = tempDir('signet-auth-check-ca-');
    selfSignedCert({
      keyFile: join(dir, 'idp.key'),
      certFile: join(dir, 'idp.crt'),
      commonName: 'localhost',
      altNames: 'DNS:localhost',
      days: 1,
    });
    const { key, jwk } = await (async () => {
      const { generateKeyPair, exportJWK } = await import('jose');
      const pair = await generateKeyPair('ES256', { extractable: true });
      return { key: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'ca-test', alg: 'ES256' } };
    })();
    let issuer = '';
    const server = createHttpsServer({ key: readFileSync(join(dir, 'idp.key')), cert: readFileSync(join(dir, 'idp.crt')) }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/oauth-authorization-server') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
    try {
      const resource = 'https://mcp.example.org/mcp';
      const oauth = { SIGNET_AUTH_MODE: 'oauth', SIGNET_OAUTH_ISSUER: issuer, SIGNET_OAUTH_RESOURCE: resource };
      const { SignJWT } = await import('jose');
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ iss: issuer, aud: resource, sub: 'ca-user', scope: 'signet:read', iat: now, exp: now + 300 })
        .setProtectedHeader({ alg: 'ES256', kid: 'ca-test', typ: 'at+jwt' })
        .sign(key);
      const trusting = await startAuthCheck({ ...oauth, SIGNET_OAUTH_CA_FILE: join(dir, 'idp.crt') });
      started.push(trusting);
      const ok = await rawRequest(`http://127.0.0.1:${trusting.port}/check`, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(204);
      expect(String(ok.headers['x-signet-principal'])).toMatch(/^https%3A%2F%2Flocalhost%3A\d+ ca-user/);
      const untrusting = await startAuthCheck(oauth);
      started.push(untrusting);
      const no = await rawRequest(`http://127.0.0.1:${untrusting.port}/check`, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(no.status).toBe(403);
      expect(no.headers['x-signet-auth']).toBe('unavailable');
      expect(untrusting.logs()).toMatch(/authorization server not reachable; retrying/);
    } finally {
      server.close();
    }
  });

  it('drops scope tokens with control characters from what it vouches for, never answering 500 (pen test of issue 26)', async () => {
    const resource = 'https://mcp.example.org/mcp';
    const issuer = await startJwtIssuer(resource);
    try {
      const check = await startAuthCheck({
        SIGNET_AUTH_MODE: 'oauth',
        SIGNET_OAUTH_ISSUER: issuer.issuer,
        SIGNET_OAUTH_RESOURCE: resource,
      });
      started.push(check);
      const ask = async (claims: Record<string, unknown>) =>
        rawRequest(`http://127.0.0.1:${check.port}/check`, {
          method: 'GET',
          headers: { authorization: `Bearer ${await issuer.token(claims)}` },
        });
      for (const claims of [
        { scope: 'signet:read sig\u0001net:evaluate' },
        { scope: 'signet:read signet:evaluate\u007f' },
        { scope: 'signet:read\tsignet:evaluate' },
        { scope: undefined, scp: ['signet:read', 'signet:evaluate\r\nX-Signet-Key-Id: forged'] },
        { scope: undefined, scp: 'signet:read \u0000signet:evaluate' },
      ]) {
        const r = await ask(claims);
        expect(r.status, JSON.stringify(claims)).toBe(204);
        // What a control character was part of is gone; the rest is vouched for as it was.
        const scopes = String(r.headers['x-signet-scopes'] ?? '');
        expect(scopes, JSON.stringify(claims)).not.toMatch(/evaluate/);
        expect(r.headers['x-signet-key-id']).toBeUndefined();
      }
      expect((await ask({ scope: 'signet:read signet:evaluate' })).headers['x-signet-scopes']).toBe('signet:read signet:evaluate');
    } finally {
      await issuer.close();
    }
  });

  it('--check-config exits 0 on settings it accepts and 1 with the refusal, listening on nothing (compose runs it first)', () => {
    const dir = tempDir('signet-auth-check-config-');
    const check = (env: Record<string, string>) =>
      spawnSync(process.execPath, [CLI, 'auth-check', '--check-config'], {
        env: { PATH: process.env['PATH'] ?? '', SIGNET_KEY_STORE: join(dir, 'keys.json'), SIGNET_AUTH_CHECK_PORT: '0', ...env },
        encoding: 'utf8',
        timeout: 10_000,
      });
    const oauth = {
      SIGNET_AUTH_MODE: 'keys+oauth',
      SIGNET_OAUTH_ISSUER: 'https://idp.example.org',
      SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp',
    };
    // Accepted: no issuer is contacted, no store needs to exist yet (the keys one-shot makes it).
    const ok = check({ ...oauth, SIGNET_AUTH_CHECK_HOST: '0.0.0.0', SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir) });
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('auth check settings accepted (keys+oauth)\n');
    const refusals: [Record<string, string>, RegExp][] = [
      [{ SIGNET_KEY_EXPIRY_WARNING_DAYS: 'soon' }, /SIGNET_KEY_EXPIRY_WARNING_DAYS/],
      [{ ...oauth, SIGNET_OAUTH_ALGORITHMS: 'HS256' }, /SIGNET_OAUTH_ALGORITHMS/],
      [{ ...oauth, SIGNET_OAUTH_ISSUER: 'http://host.docker.internal:9400' }, /SIGNET_OAUTH_ISSUER/],
      [{ ...oauth, SIGNET_OAUTH_CA_FILE: join(dir, 'missing-ca.pem') }, /SIGNET_OAUTH_CA_FILE: cannot read \S+missing-ca\.pem: ENOENT/],
      [{ ...oauth, SIGNET_OAUTH_CA_FILE: join(dir, 'keys.json.ca') }, /SIGNET_OAUTH_CA_FILE: \S+ holds no PEM certificate/],
      [{ SIGNET_AUTH_CHECK_HOST: '0.0.0.0' }, /not loopback: the auth check then needs SIGNET_PROXY_SECRET_FILE/],
    ];
    writeFileSync(join(dir, 'keys.json.ca'), 'not a certificate\n');
    for (const [env, message] of refusals) {
      const r = check(env);
      expect(r.status, JSON.stringify(env)).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });
});
