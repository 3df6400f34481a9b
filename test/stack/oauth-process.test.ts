// OAuth 2.1 at the proxy on the process stack (issue 19): Debian's nginx rendered by
// proxy/render.sh in SIGNET_AUTH_MODE oauth and keys+oauth, the built `signet auth-check`,
// the built server, and an issuer on loopback. Every refusal of the token check is a request
// here that a proxy skipping that check would let through.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JwtIssuer, signingKey, startJwtIssuer } from '../helpers/jwt-issuer.js';
import { freePort, renderProxy } from '../helpers/proxy-process.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { ENVELOPE } from '../integration/protocol-corpus.js';
import { runKeys, startProcessStack } from './process-stack.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const call = (name: string, args: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

async function startOAuthStack(mode: 'oauth' | 'keys+oauth', serverEnv: Record<string, string> = {}) {
  const proxyPort = await freePort();
  const resource = `http://127.0.0.1:${proxyPort}/mcp`;
  const issuer = await startJwtIssuer(resource);
  const oauthEnv = { SIGNET_AUTH_MODE: mode, SIGNET_OAUTH_ISSUER: issuer.issuer, SIGNET_OAUTH_RESOURCE: resource };
  const stack = await startProcessStack(
    // Room for the refusals below: the refused-credential limit per address is tested elsewhere.
    { ...oauthEnv, SIGNET_PROXY_AUTH_FAILURES_BURST: '200', SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '600' },
    serverEnv,
    'store',
    proxyPort,
    // Short, so the rotation below needs no half-minute wait; the flood stays inside one window.
    { SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS: '3' },
  );
  const verifier = stack.authCheck!;
  const url = `http://127.0.0.1:${proxyPort}/mcp`;
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const allLogs = () => stack.nginx.accessLog() + stack.nginx.errorLog() + stack.server.logs() + verifier.logs();
  return {
    stack,
    issuer,
    verifier,
    resource,
    url,
    post,
    bearer,
    allLogs,
    metadataUrl: `http://127.0.0.1:${proxyPort}/.well-known/oauth-protected-resource/mcp`,
    stop: async () => {
      await stack.stop();
      await verifier.stop();
      await issuer.close();
    },
  };
}

type Stack = Awaited<ReturnType<typeof startOAuthStack>>;

/** A JWS with the given header and payload and a made-up signature part. */
const rawJws = (header: object, payload: object, signature = '') =>
  `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;

describe('OAuth at the proxy, process stack (SIGNET_AUTH_MODE=oauth)', () => {
  let s: Stack;
  const issued: string[] = [];
  beforeAll(async () => {
    s = await startOAuthStack('oauth', { SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE: '4' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });
  const token = async (...args: Parameters<JwtIssuer['token']>) => {
    const t = await s.issuer.token(...args);
    issued.push(t);
    return t;
  };
  const challenge = (m: string, error?: string) =>
    `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${m}", scope="signet:read"`;

  it('answers without a token 401 with the RFC 9728 challenge, and serves the metadata at the path-aware and the root URL', async () => {
    const res = await s.post(call('doctrine_info'), { origin: 'http://localhost:5173' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge(s.metadataUrl));
    // A browser client (the Inspector) may read it.
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
    const expected = {
      resource: s.resource,
      authorization_servers: [s.issuer.issuer],
      scopes_supported: ['signet:read', 'signet:evaluate'],
      bearer_methods_supported: ['header'],
      resource_name: 'Signet',
    };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      // Host and X-Forwarded-* never change what the metadata says.
      const meta = await fetch(new URL(path, s.url), {
        headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', origin: 'http://localhost:5173' },
      });
      expect(meta.status).toBe(200);
      expect(meta.headers.get('content-type')).toMatch(/application\/json/);
      expect(meta.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(await meta.json()).toEqual(expected);
    }
    // A browser's preflight for the metadata is answered, not 405 (pen test, issue 28).
    const preflight = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', s.url), {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect((await fetch(new URL('/.well-known/oauth-protected-resource/other', s.url))).status).toBe(404);
    expect((await fetch(new URL('/.well-known/oauth-authorization-server', s.url))).status).toBe(404);
  });

  it('forwards a valid token as its principal: a signed answer, the subject in the server log, the token nowhere', async () => {
    const t = await token({ sub: 'alice' });
    const res = await s.post(call('doctrine_info'), s.bearer(t));
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const field of ['doctrine_hash', 'doctrine_signature', 'doctrine_public_key']) expect(text).toContain(`"${field}"`);
    const line = await s.stack.server.waitForLog((l) => l['msg'] === 'mcp request' && l['oauth_sub'] === 'alice');
    expect(line).toMatchObject({ oauth_iss: s.issuer.issuer, oauth_client: 'test-client', status: 200 });
    expect(line['key_id']).toBeUndefined();
  });

  it('refuses with 401 invalid_token every token that fails a check, and each refusal reaches no server', async () => {
    const now = Math.floor(Date.now() / 1000);
    const attacker = await signingKey('k1'); // the real key's kid, an attacker's key
    const hsSecret = Buffer.from(JSON.stringify(s.issuer.keys[0]!.jwk));
    const hs256 = (() => {
      const unsigned = rawJws(
        { alg: 'HS256', kid: 'k1', typ: 'at+jwt' },
        { iss: s.issuer.issuer, aud: s.resource, sub: 'mallory', scope: 'signet:read', exp: now + 300 },
      );
      const head = unsigned.slice(0, -1);
      return head + createHmac('sha256', hsSecret).update(head.slice(0, -1)).digest('base64url');
    })();
    const cases: [string, string][] = [
      ['another resource (aud)', await token({ aud: 'https://other.example/mcp' })],
      ['another issuer (iss)', await token({ iss: 'https://evil.example' })],
      ['expired beyond the leeway', await token({ iat: now - 600, exp: now - 120 })],
      ['not valid yet (nbf beyond the leeway)', await token({ nbf: now + 600 })],
      ['issued in the future (iat beyond the leeway)', await token({ iat: now + 600 })],
      ['no exp', await token({ exp: undefined })],
      ['alg none', rawJws({ alg: 'none', typ: 'at+jwt' }, { iss: s.issuer.issuer, aud: s.resource, sub: 'mallory', exp: now + 300 })],
      ['HS256 with the public key as the secret', hs256],
      ['signed by another key under the real kid', await token({}, {}, attacker)],
      ['its own key in a jwk header', await token({}, { jwk: attacker.jwk }, attacker)],
      ['a jku header', await token({}, { jku: 'https://evil.example/jwks' })],
      ['an x5u header', await token({}, { x5u: 'https://evil.example/cert.pem' } as never)],
      ['typ of an ID token', await token({}, { typ: 'id_token+jwt' })],
      ['garbage', 'not.a.jwt'],
      ['an API key (oauth mode takes no key)', s.stack.key],
      ['a key of the store (oauth mode takes no key)', (await runKeys(s.stack.store, ['create', '--name', 'no'])).out.trim()],
    ];
    // The server's log is flushed every 100 ms: count from a settled log.
    await new Promise((r) => setTimeout(r, 300));
    const before = s.stack.server.logLines().filter((l) => l['msg'] === 'mcp request').length;
    for (const [why, t] of cases) {
      const res = await s.post(call('doctrine_info'), s.bearer(t));
      expect(res.status, why).toBe(401);
      expect(res.headers.get('www-authenticate'), why).toBe(challenge(s.metadataUrl, 'invalid_token'));
    }
    // Within the leeway (30 s): still accepted (clock skew between issuer and proxy).
    expect((await s.post(call('doctrine_info'), s.bearer(await token({ iat: now + 10, nbf: now + 10, exp: now + 300 })))).status).toBe(200);
    expect((await s.post(call('doctrine_info'), s.bearer(await token({ iat: now - 300, exp: now - 10 })))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const after = s.stack.server.logLines().filter((l) => l['msg'] === 'mcp request').length;
    expect(after - before).toBe(2);
  });

  it('overwrites a principal or scopes a client sends itself', async () => {
    const t = await token({ sub: 'reader', scope: 'signet:read' });
    const res = await s.post(call('doctrine_evaluate', { facts: {} }), {
      ...s.bearer(t),
      'x-signet-principal': 'https://evil.example admin x',
      'x-signet-scopes': 'signet:evaluate',
      'x-signet-key-id': 'abcd1234',
    });
    expect(res.status).toBe(403);
  });

  it('asks for the missing scope with a 403 step-up challenge, in both protocol eras, and runs the call once the token holds it', async () => {
    const reader = await token({ sub: 'dana', scope: 'signet:read' });
    const evaluate = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'doctrine_evaluate', arguments: { facts: {} } } };
    const modern = { ...evaluate, params: { ...evaluate.params, _meta: ENVELOPE } };
    const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'doctrine_evaluate' };
    const want = `Bearer error="insufficient_scope", scope="signet:evaluate", resource_metadata="${s.metadataUrl}"`;
    for (const [body, headers] of [
      [evaluate, {}],
      [modern, modernHeaders],
    ] as const) {
      const res = await s.post(JSON.stringify(body), { ...s.bearer(reader), ...headers, origin: 'http://localhost:5173' });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBe(want);
      // A browser client reads the challenge too.
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(res.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
      expect(res.headers.get('x-signet-insufficient-scope')).toBeNull();
      expect(((await res.json()) as { error: { data: unknown } }).error.data).toEqual({ required_scopes: ['signet:evaluate'] });
    }
    const evaluator = await token({ sub: 'dana', scope: 'signet:read signet:evaluate' });
    expect((await s.post(JSON.stringify(modern), { ...s.bearer(evaluator), ...modernHeaders })).status).toBe(200);
  });

  it('charges a call refused for its scope like any other (pen test M2 of issue 26): 1 MB refused calls end in 429', async () => {
    const reader = await token({ sub: 'grace', scope: 'signet:read' });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'doctrine_evaluate', arguments: { facts: {}, note: 'z'.repeat(1_000_000) } },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await s.post(big, s.bearer(reader))).status);
    // Four calls a minute for each person here: four refusals spend them, then 429.
    expect(statuses).toEqual([403, 403, 403, 403, 429, 429]);
    expect((await s.post(call('doctrine_info'), s.bearer(reader))).status).toBe(429);
  });

  it("limits each person alone: erin's runaway calls hit her budget, frank's still pass", async () => {
    const erin = await token({ sub: 'erin' });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await s.post(call('doctrine_info'), s.bearer(erin))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // Another token of the same person (another client) shares her budget; another person does not.
    expect((await s.post(call('doctrine_info'), s.bearer(await token({ sub: 'erin', client_id: 'other' })))).status).toBe(429);
    expect((await s.post(call('doctrine_info'), s.bearer(await token({ sub: 'frank' })))).status).toBe(200);
  });

  it('fetches the keys at most once per cooldown for a flood of unknown kids, and follows a rotation at the issuer with no failed request', async () => {
    // Outside the previous window first, so the flood's refetch is its only one.
    await new Promise((r) => setTimeout(r, 3200));
    const before = s.issuer.jwksFetches();
    const stranger = await signingKey('x');
    const flood = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const k = { ...stranger, kid: `random-${i}` };
        return (await s.post(call('doctrine_info'), s.bearer(await token({}, { kid: k.kid }, k)))).status;
      }),
    );
    expect(new Set(flood)).toEqual(new Set([401]));
    expect(s.issuer.jwksFetches() - before).toBeLessThanOrEqual(1);
    // Rotation: the issuer publishes k2 and signs with it; the first k2 token after the cooldown works.
    await new Promise((r) => setTimeout(r, 3200));
    const k2 = await signingKey('k2');
    s.issuer.keys = [k2, ...s.issuer.keys];
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await s.post(call('doctrine_info'), s.bearer(await token({ sub: `rot${i}` }, {}, k2)))).status);
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('never writes a token to any log', async () => {
    await new Promise((r) => setTimeout(r, 1200));
    const logs = s.allLogs();
    expect(issued.length).toBeGreaterThan(20);
    for (const t of issued) expect(logs.includes(t.split('.')[2]!)).toBe(false);
  });

  it('answers 503, not invalid_token, while the auth check cannot be reached', async () => {
    const t = await token({ sub: 'gina' });
    await s.verifier.stop();
    const res = await s.post(call('doctrine_info'), s.bearer(t));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'unavailable' });
  });
});

describe('OAuth at the proxy, process stack (SIGNET_AUTH_MODE=keys+oauth)', () => {
  let s: Stack;
  let key = '';
  beforeAll(async () => {
    s = await startOAuthStack('keys+oauth');
    const created = await runKeys(s.stack.store, ['create', '--name', 'ci']);
    key = /sgnk_[0-9A-Za-z]{57}/.exec(created.out)![0];
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('takes a key as a key and a token as a token, and neither for the other', async () => {
    expect((await s.post(call('doctrine_info'), s.bearer(key))).status).toBe(200);
    expect((await s.post(call('doctrine_info'), s.bearer(await s.issuer.token({ sub: 'hana' })))).status).toBe(200);
    await s.stack.server.waitForLog((l) => l['msg'] === 'mcp request' && typeof l['key_id'] === 'string');
    await s.stack.server.waitForLog((l) => l['msg'] === 'mcp request' && l['oauth_sub'] === 'hana');
    const wrongKey = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    for (const [why, header] of [
      ['a key-shaped bearer that is no key', `Bearer ${wrongKey}`],
      ['a token behind the key prefix', `Bearer sgnk_${await s.issuer.token()}`],
    ]) {
      const res = await s.post(call('doctrine_info'), { authorization: header! });
      expect(res.status, why).toBe(401);
      expect(res.headers.get('www-authenticate'), why).toMatch(/^Bearer error="invalid_token", resource_metadata=/);
    }
    // The scheme is case-insensitive (RFC 9110 §11.1): a valid key under `bearer` is a key.
    expect((await s.post(call('doctrine_info'), { authorization: `bearer ${key}` })).status).toBe(200);
  });
});

describe('OAuth proxy start-up', () => {
  it('refuses an incomplete or unsafe OAuth configuration, naming the variable', () => {
    const dir = '/nonexistent';
    const base = {
      SIGNET_AUTH_MODE: 'oauth',
      SIGNET_OAUTH_ISSUER: 'https://idp.example.org',
      SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp',
      SIGNET_PROXY_AUTH_CHECK: '127.0.0.1:3100',
    };
    for (const [env, message] of [
      [{ ...base, SIGNET_OAUTH_ISSUER: '' }, /SIGNET_OAUTH_ISSUER is required with SIGNET_AUTH_MODE=oauth/],
      [{ ...base, SIGNET_OAUTH_RESOURCE: '' }, /SIGNET_OAUTH_RESOURCE is required/],
      [{ ...base, SIGNET_OAUTH_ISSUER: 'http://idp.example.org' }, /SIGNET_OAUTH_ISSUER must be an https:\/\/ URL/],
      [
        { ...base, SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp/' },
        /SIGNET_OAUTH_RESOURCE must be an absolute URL with no query, fragment or quote, and no trailing slash/,
      ],
      [{ ...base, SIGNET_OAUTH_RESOURCE: "https://mcp.example.org/mcp'x" }, /SIGNET_OAUTH_RESOURCE must be an absolute URL/],
      [{ ...base, SIGNET_OAUTH_SCOPES_SUPPORTED: 'signet:read offline_access' }, /must not name offline_access/],
      [{ ...base, SIGNET_AUTH_MODE: 'tokens' }, /SIGNET_AUTH_MODE must be keys, oauth or keys\+oauth/],
      [{ ...base, SIGNET_PROXY_AUTH_CHECK: '' }, /SIGNET_AUTH_MODE=oauth needs SIGNET_PROXY_AUTH_CHECK/],
      [{ ...base, SIGNET_OAUTH_VERIFIER: 'token-verifier:3100' }, /SIGNET_OAUTH_VERIFIER is now SIGNET_PROXY_AUTH_CHECK/],
    ] as const) {
      const r = renderProxy({ SIGNET_PROXY_CONF_DIR: `${dir}/conf`, SIGNET_PROXY_HOME: `${process.cwd()}/proxy`, ...env });
      expect(r.code, JSON.stringify(env)).not.toBe(0);
      expect(r.stderr).toMatch(message);
    }
    // The issuer stays exactly as its tokens' iss, a trailing slash included (Auth0's has one).
    const ok = renderProxy({
      SIGNET_PROXY_CONF_DIR: `${tempDir('signet-oauth-render-')}/conf`,
      SIGNET_PROXY_HOME: `${process.cwd()}/proxy`,
      ...base,
      SIGNET_OAUTH_ISSUER: 'https://tenant.example.auth0.com/',
    });
    expect(ok.code, ok.stderr).toBe(0);
  });
});
