// The whole OAuth flow on the process stack (issue 19), as OAuth-only MCP clients run it: the
// official SDK clients (v2 on 2026-07-28, v1 on 2025-11-25) against the reference proxy in
// keys+oauth mode, with oidc-provider as the authorization server. From the 401 through
// discovery, dynamic registration, authorization code + PKCE with the resource indicator, the
// token, signed tool calls, a step-up for a scope the first token lacks, a refresh, and a
// signing-key rotation at the issuer, with no failed call.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNED_MESSAGE } from '../../src/signing/format.js';
import { connectWithOAuth, HeadlessOAuthClient } from '../helpers/mcp-oauth.js';
import { type IssuerProcess, startIssuerProcess } from '../helpers/oauth-issuer-process.js';
import { opensslVerify } from '../helpers/openssl.js';
import { freePort } from '../helpers/proxy-process.js';
import { startProcessStack } from './process-stack.js';

describe('the OAuth flow end to end with the MCP SDK clients and oidc-provider (process stack, keys+oauth)', () => {
  let issuer: IssuerProcess;
  let stack: Awaited<ReturnType<typeof startProcessStack>>;
  let url = '';
  let resource = '';

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    url = resource;
    issuer = await startIssuerProcess([resource]);
    const oauthEnv = { SIGNET_AUTH_MODE: 'keys+oauth', SIGNET_OAUTH_ISSUER: issuer.issuer, SIGNET_OAUTH_RESOURCE: resource };
    stack = await startProcessStack(oauthEnv, {}, 'store', port, { SIGNET_OAUTH_JWKS_COOLDOWN_SECONDS: '1' });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await issuer?.stop();
  });

  /** A signed tool result: its output signature checked with OpenSSL against the key it names. */
  function expectSigned(result: Record<string, unknown>) {
    const footer = (result['structuredContent'] as { footer: Record<string, string> }).footer;
    expect(footer['doctrine_signature']).toMatch(/^ed25519:/);
    expect(
      opensslVerify(
        footer['doctrine_public_key']!,
        SIGNED_MESSAGE.output(footer['signature_format']!, footer['output_hash']!),
        footer['output_signature']!,
      ),
    ).toBe(true);
    return footer;
  }

  it('v2 client (2026-07-28): 401 → metadata → registration → code + PKCE → a token for this resource → signed calls → step-up → refresh', async () => {
    const oauth = new HeadlessOAuthClient('alice', issuer.issuer);
    const session = await connectWithOAuth('v2', url, oauth);
    expect(session.protocolVersion()).toBe('2026-07-28');
    // The flow the SDK ran, in order; the first authorization asks for what the 401 named
    // (and offline_access, which the v2 client adds when the authorization server offers it).
    expect(oauth.log.slice(0, 6)).toEqual([
      'registered',
      expect.stringMatching(new RegExp(`^authorize scope=signet:read( offline_access)? resource=${resource}$`)),
      'signed in',
      'consented',
      'authorized',
      'tokens',
    ]);
    // RFC 9068: a JWT access token, for this resource, from this issuer, with the scope granted.
    const token = oauth.accessToken()!;
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
    const claims = decodeJwt(token);
    expect(claims.iss).toBe(issuer.issuer);
    expect([claims.aud].flat()).toContain(resource);
    expect(claims.sub).toBe('alice');
    expect(String(claims['scope']).split(' ')).toEqual(['signet:read']);

    const { tools } = await session.listTools();
    expect(tools.map((t) => t.name)).toContain('doctrine_evaluate');
    const info = await session.callTool('doctrine_info', {});
    expectSigned(info);

    // doctrine_evaluate needs signet:evaluate: 403 with the challenge, the SDK steps up
    // (asking for the union of what it holds and what the challenge names), the call runs.
    const evaluated = await session.callTool('doctrine_evaluate', { facts: { transport: { kind: 'stdio' } } });
    expectSigned(evaluated);
    const stepUp = oauth.log.indexOf('step-up');
    expect(stepUp).toBeGreaterThan(5);
    const again = oauth.log.find((l, i) => i > 5 && l.startsWith('authorize'))!;
    expect(again.split(' ').slice(1, -1).join(' ').replace('scope=', '').split(' ').sort()).toEqual(
      expect.arrayContaining(['signet:evaluate', 'signet:read']),
    );
    expect(String(decodeJwt(oauth.accessToken()!)['scope']).split(' ').sort()).toEqual(['signet:evaluate', 'signet:read']);

    // The access token expires: the SDK refreshes with the refresh token (no new sign-in) and the call goes through.
    const signIns = oauth.log.filter((l) => l === 'signed in').length;
    oauth.expireAccessToken();
    expectSigned(await session.callTool('doctrine_info', {}));
    expect(oauth.log).toContain('refreshed');
    expect(oauth.log.filter((l) => l === 'signed in').length).toBe(signIns);

    // The server saw alice by name, and never a token.
    const line = await stack.server.waitForLog(
      (l) => l['msg'] === 'mcp request' && l['oauth_sub'] === 'alice' && l['tool'] === 'doctrine_evaluate',
    );
    expect(line['oauth_iss']).toBe(issuer.issuer);
    expect(stack.server.logs()).not.toContain(token.split('.')[2]!);
    await session.close();
  });

  it('v1 client (2025-11-25): the same flow to a signed call, its footer verified with OpenSSL', async () => {
    const oauth = new HeadlessOAuthClient('bob', issuer.issuer);
    const session = await connectWithOAuth('v1', url, oauth);
    expect(session.protocolVersion()).toBe('2025-11-25');
    expect(oauth.log).toContain('authorized');
    const footer = expectSigned(await session.callTool('doctrine_info', {}));
    expect(footer['doctrine_hash']).toMatch(/^sha256:[0-9a-f]{64}$/);
    await session.close();
  });

  it('follows a signing-key rotation at the issuer with no failed call', async () => {
    const oauth = new HeadlessOAuthClient('carol', issuer.issuer);
    const session = await connectWithOAuth('v2', url, oauth);
    expectSigned(await session.callTool('doctrine_info', {}));
    const before = decodeProtectedHeader(oauth.accessToken()!).kid;
    const kid = await issuer.rotate();
    expect(kid).not.toBe(before);
    // Past the verifier's cooldown (1 s here), the first token under the new key refetches the keys.
    await new Promise((r) => setTimeout(r, 1100));
    oauth.expireAccessToken(); // the refresh brings a token signed with the new key
    expectSigned(await session.callTool('doctrine_info', {}));
    expect(decodeProtectedHeader(oauth.accessToken()!).kid).toBe(kid);
    expect(oauth.log.filter((l) => l === 'signed in').length).toBe(1);
    await session.close();
  });
});
