// A minimal issuer for the token checks' negative tests: RFC 8414 metadata and a JWKS on
// loopback, and a signer for tokens with exactly the header and claims a test needs (the
// real authorization server, oidc-provider, issues only well-formed ones). Counts JWKS fetches.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTHeaderParameters, type JWTPayload, SignJWT } from 'jose';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string, alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface JwtIssuer {
  issuer: string;
  /** Keys published in the JWKS, the first one signing by default. */
  keys: SigningKey[];
  jwksFetches(): number;
  /** 'ok' serves the keys; 'error' answers the JWKS request with 500 (an issuer outage). */
  jwksMode: 'ok' | 'error';
  /** A token signed with `key` (default the first published), with the defaults below overridable. */
  token(claims?: JWTPayload, header?: Partial<JWTHeaderParameters>, key?: SigningKey): Promise<string>;
  close(): Promise<void>;
}

export async function startJwtIssuer(resource: string, keys?: SigningKey[]): Promise<JwtIssuer> {
  let fetches = 0;
  const state: { keys: SigningKey[]; jwksMode: 'ok' | 'error' } = { keys: keys ?? [await signingKey('k1')], jwksMode: 'ok' };
  let issuer = '';
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/oauth-authorization-server') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }));
    } else if (req.url === '/jwks') {
      fetches++;
      if (state.jwksMode === 'error') {
        res.statusCode = 500;
        res.end('{"error":"server_error"}');
      } else res.end(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    get keys() {
      return state.keys;
    },
    set keys(k: SigningKey[]) {
      state.keys = k;
    },
    jwksFetches: () => fetches,
    get jwksMode() {
      return state.jwksMode;
    },
    set jwksMode(m: 'ok' | 'error') {
      state.jwksMode = m;
    },
    async token(claims = {}, header = {}, key = state.keys[0]!) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        aud: resource,
        sub: 'alice',
        client_id: 'test-client',
        scope: 'signet:read',
        iat: now,
        exp: now + 300,
        ...claims,
      })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header })
        .sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  } as JwtIssuer;
}
