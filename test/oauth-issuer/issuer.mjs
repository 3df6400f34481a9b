// A real OAuth 2.1 authorization server for the tests, never shipped: panva's oidc-provider
// with RFC 8707 resource indicators (JWT access tokens for the Signet resource, RFC 9068),
// PKCE required, RFC 9207 `iss` in authorization responses, dynamic client registration
// (RFC 7591, what the MCP SDK clients use without a pre-registered client) and refresh tokens.
// Login and consent are oidc-provider's development interactions: a test answers them with
// plain HTTP (test/helpers/mcp-oauth.ts), no browser.
//
// Runs as a process (the process-stack tests) or in a container (the compose test):
//   ISSUER_PORT       listen port (0: any); ISSUER_HOST (127.0.0.1)
//   ISSUER_URL        the issuer identifier (default http://127.0.0.1:<port>)
//   ISSUER_RESOURCES  comma-separated resource URIs tokens may be issued for; the first is the default
// Test-only endpoints: POST /_test/rotate (a new signing key first, the old one kept published),
// GET /_test/stats ({ jwks_fetches }); POST /_test/sign (a token with exactly the claims and header
// a negative test needs, signed with the issuer's key, another key under its kid, or an unknown
// kid); POST /_test/jwks ({ mode: "error" }: the JWKS answers 500, an outage; "ok"). Prints "issuer listening on port N" when ready.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';
import Provider, { errors } from 'oidc-provider';

const host = process.env.ISSUER_HOST ?? '127.0.0.1';
const server = createServer();
await new Promise((r) => server.listen(Number(process.env.ISSUER_PORT ?? 0), host, () => r(undefined)));
const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
const issuer = process.env.ISSUER_URL ?? `http://127.0.0.1:${port}`;
const resources = (process.env.ISSUER_RESOURCES ?? '').split(',').filter((r) => r.length > 0);
if (resources.length === 0) throw new Error('ISSUER_RESOURCES: at least one resource URI');
const SCOPES = 'signet:read signet:evaluate';

async function signingKey(n) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: `test-key-${n}`, alg: 'ES256', use: 'sig' };
}

// One store for every provider instance (a rotation builds a new one): registered clients,
// grants, sessions and refresh tokens outlive it, as they would in a database.
const store = new Map();
class SharedAdapter {
  constructor(model) {
    this.model = model;
  }
  key(id) {
    return `${this.model}:${id}`;
  }
  async upsert(id, payload, expiresIn) {
    // A registered client may later ask for any scope the issuer serves (a step-up), as with
    // providers whose scopes belong to the realm, not to the registration the MCP SDK sends
    // with the scope it wanted first.
    if (this.model === 'Client') delete payload.scope;
    store.set(this.key(id), { payload, expires: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    if (payload.grantId) store.set(`grant:${payload.grantId}:${this.key(id)}`, { payload: this.key(id), expires: Infinity });
    if (payload.uid) store.set(`uid:${this.model}:${payload.uid}`, { payload: id, expires: Infinity });
    if (payload.userCode) store.set(`userCode:${this.model}:${payload.userCode}`, { payload: id, expires: Infinity });
  }
  async find(id) {
    const e = store.get(this.key(id));
    return e && e.expires > Date.now() ? e.payload : undefined;
  }
  async findByUid(uid) {
    const id = store.get(`uid:${this.model}:${uid}`)?.payload;
    return id ? this.find(id) : undefined;
  }
  async findByUserCode(code) {
    const id = store.get(`userCode:${this.model}:${code}`)?.payload;
    return id ? this.find(id) : undefined;
  }
  async consume(id) {
    const e = store.get(this.key(id));
    if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) {
    store.delete(this.key(id));
  }
  async revokeByGrantId(grantId) {
    for (const k of [...store.keys()]) {
      if (k.startsWith(`grant:${grantId}:`)) {
        store.delete(store.get(k).payload);
        store.delete(k);
      }
    }
  }
}

let keys = [await signingKey(1)];
let jwksFetches = 0;

function provider() {
  const p = new Provider(issuer, {
    adapter: SharedAdapter,
    jwks: { keys },
    scopes: ['openid', 'offline_access', 'signet:read', 'signet:evaluate'],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resources.includes(indicator)) throw new errors.InvalidTarget();
          return { scope: SCOPES, audience: indicator, accessTokenTTL: 300, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    pkce: { required: () => true },
    // Its keys are ES256 only (id tokens included; MCP clients do not ask for them anyway).
    clientDefaults: {
      id_token_signed_response_alg: 'ES256',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    // Refresh tokens for every client allowed the grant (MCP resources never ask for offline_access).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    clientBasedCORS: () => true,
    ttl: { AccessToken: 300, Grant: 3600, Interaction: 600, Session: 3600, RefreshToken: 3600 },
  });
  p.on('server_error', (_ctx, err) => console.error('issuer server_error', err));
  // A request that names no scope gets the default one (OAuth 2.1 lets an authorization server
  // apply a default; the resource's 401 names signet:read), not a consent that grants nothing.
  p.use(async (ctx, next) => {
    if (ctx.path === '/auth' && ctx.method === 'GET' && !ctx.query.scope) ctx.query = { ...ctx.query, scope: SCOPES.split(' ')[0] };
    await next();
  });
  return p;
}

let jwksMode = 'ok';
/** The JSON body of a test request. */
const body = (req) =>
  new Promise((resolve) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve(text ? JSON.parse(text) : {}));
  });
/** A token as a negative test needs it (the provider itself only issues well-formed ones). */
async function testToken({ claims = {}, header = {}, forge = false, unknownKid }) {
  const key = forge || unknownKid ? { ...(await signingKey(0)), kid: unknownKid ?? keys[0].kid } : keys[0];
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuer,
    aud: resources[0],
    sub: 'alice',
    client_id: 'test-client',
    scope: 'signet:read',
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt', ...header })
    .sign(await importJWK(key, 'ES256'));
}

let current = provider();
server.on('request', (req, res) => {
  if (req.url === '/_test/sign' && req.method === 'POST') {
    body(req)
      .then(testToken)
      .then((token) => res.end(JSON.stringify({ token })));
    return;
  }
  if (req.url === '/_test/jwks' && req.method === 'POST') {
    body(req).then((b) => {
      jwksMode = b.mode === 'error' ? 'error' : 'ok';
      res.end('{}');
    });
    return;
  }
  if (req.url === '/jwks' && jwksMode === 'error') {
    jwksFetches++;
    res.statusCode = 500;
    return res.end('{"error":"server_error"}');
  }
  if (req.url === '/_test/stats') return res.end(JSON.stringify({ jwks_fetches: jwksFetches, kids: keys.map((k) => k.kid) }));
  if (req.url === '/_test/rotate' && req.method === 'POST') {
    // A new provider with the new key first (it signs) and the old one still published; grants,
    // sessions and refresh tokens live in oidc-provider's in-process store and survive.
    signingKey(keys.length + 1).then((k) => {
      keys = [k, ...keys];
      current = provider();
      res.end(JSON.stringify({ kid: k.kid }));
    });
    return;
  }
  if (req.url === '/jwks') jwksFetches++;
  current.callback()(req, res);
});
console.log(`issuer listening on port ${port} as ${issuer}`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
