// The server's side of OAuth at the proxy (issue 19): the OAuth subject and scopes are believed
// only from the authenticated proxy, one subject's budget is its own, and a call runs only
// with the scopes its operation needs, for both protocol eras, decided from the body.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { RequestEvent } from '../../../src/transports/http/app.js';
import { formatPrincipal, parseSubject } from '../../../src/transports/http/oauth/principal-header.js';
import { missingScopes } from '../../../src/transports/http/oauth/scope-policy.js';
import { httpApp as app, memoryPolicy as policy } from '../../helpers/http-app.js';
import { ENVELOPE } from '../../integration/protocol-corpus.js';

const SECRET = 'e'.repeat(64);
const ISSUER = 'https://idp.example.org/realms/team';
const JSON_HEADERS = { host: '127.0.0.1:3000', 'content-type': 'application/json', accept: 'application/json' };
const MODERN = { 'mcp-protocol-version': '2026-07-28' };

const toolCall = (name: string, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1:3000/mcp', {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const asSubject = (sub: string, scopes: string, extra: Record<string, string> = {}) => ({
  'x-signet-proxy-auth': SECRET,
  'x-forwarded-for': '198.51.100.9',
  'x-signet-principal': formatPrincipal(ISSUER, sub, 'vscode'),
  'x-signet-scopes': scopes,
  ...extra,
});
const modernCall = (name: string) => ({ ...MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
const evaluateArgs = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'doctrine_evaluate', arguments: { facts: {} } } };

describe('OAuth principal from the authenticated proxy', () => {
  it('parses the principal header and refuses what is not three percent-encoded fields', () => {
    const s = parseSubject(formatPrincipal(ISSUER, 'alice smith@example.org', ''), 'signet:read bad"scope signet:evaluate');
    expect(s).toMatchObject({ iss: ISSUER, sub: 'alice smith@example.org', client: '' });
    expect([...(s?.scopes ?? [])]).toEqual(['signet:read', 'signet:evaluate']);
    expect(s?.id).toMatch(/^oauth:[A-Za-z0-9_-]{22}$/);
    expect(parseSubject(formatPrincipal(ISSUER, 'alice', 'other-client'), '')?.id).toBe(
      s ? parseSubject(formatPrincipal(ISSUER, 'alice', ''), '')?.id : 'x',
    );
    for (const bad of [
      '',
      'a b',
      'a b c d',
      `${encodeURIComponent(ISSUER)} %E0%A4 x`,
      `${encodeURIComponent(ISSUER)} a%0Ab x`,
      ` alice x`,
    ]) {
      expect(parseSubject(bad, 'signet:read')).toBeNull();
    }
  });

  it('names the subject in the request event (the log line), only when the proxy presents its secret', async () => {
    const events: RequestEvent[] = [];
    const a = app({ proxySecret: SECRET }, events);
    expect((await a.request(post(toolCall('doctrine_info'), asSubject('alice', 'signet:read')))).status).toBe(200);
    const forged = asSubject('alice', 'signet:read', { 'x-signet-proxy-auth': 'f'.repeat(64) });
    expect((await a.request(post(toolCall('doctrine_info'), forged))).status).toBe(403);
    expect(events.map((e) => [e.status, e.subject, e.keyId])).toEqual([
      [200, { iss: ISSUER, sub: 'alice', client: 'vscode' }, null],
      [403, null, null],
    ]);
  });

  it('refuses a call for which the proxy names both an API key and an OAuth subject, and a malformed principal', async () => {
    const a = app({ proxySecret: SECRET });
    const both = await a.request(post(toolCall('doctrine_info'), asSubject('alice', 'signet:read', { 'x-signet-key-id': 'abcd1234' })));
    expect(both.status).toBe(403);
    expect(((await both.json()) as { error: { message: string } }).error.message).toMatch(/both an API key and an OAuth subject/);
    const malformed = await a.request(
      post(toolCall('doctrine_info'), asSubject('alice', 'signet:read', { 'x-signet-principal': 'alice' })),
    );
    expect(malformed.status).toBe(403);
    expect(((await malformed.json()) as { error: { message: string } }).error.message).toMatch(/malformed OAuth principal/);
  });

  it('gives each subject its own budget: alice over hers, bob from the same address still calls', async () => {
    const a = app({
      proxySecret: SECRET,
      keyCalls: policy('key-calls', 2),
      keyRequests: policy('key-requests', 100),
      ipGuard: policy('ip-guard', 100),
    });
    for (let i = 0; i < 2; i++)
      expect((await a.request(post(toolCall('doctrine_info', i), asSubject('alice', 'signet:read')))).status).toBe(200);
    const limited = await a.request(post(toolCall('doctrine_info', 3), asSubject('alice', 'signet:read')));
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(
      /tool calls per minute for this OAuth subject/,
    );
    expect((await a.request(post(toolCall('doctrine_info', 4), asSubject('bob', 'signet:read')))).status).toBe(200);
  });
});

describe('scopes per operation', () => {
  const policy0 = loadConfig({}).http.oauthScopes;

  it('names every missing scope of a batch once, and applies the hierarchy (signet:evaluate grants signet:read)', () => {
    const batch = [toolCall('doctrine_info', 1), evaluateArgs, { jsonrpc: '2.0', id: 3, method: 'tools/list' }];
    expect(missingScopes(policy0, batch, new Set())).toEqual(['signet:read', 'signet:evaluate']);
    expect(missingScopes(policy0, batch, new Set(['signet:read']))).toEqual(['signet:evaluate']);
    expect(missingScopes(policy0, batch, new Set(['signet:evaluate']))).toEqual([]);
    // Lifecycle messages need no scope; a message that is not a request needs what the map's "*" says.
    expect(missingScopes(policy0, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, new Set())).toEqual([]);
    expect(missingScopes(policy0, { jsonrpc: '2.0', method: 'notifications/initialized' }, new Set())).toEqual([]);
    expect(missingScopes(policy0, { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'x' } }, new Set())).toEqual([
      'signet:read',
    ]);
  });

  it('answers doctrine_evaluate without signet:evaluate with 403, the missing scope for the proxy challenge, and runs nothing (both eras)', async () => {
    const events: RequestEvent[] = [];
    const a = app({ proxySecret: SECRET }, events);
    for (const headers of [asSubject('carol', 'signet:read'), asSubject('carol', 'signet:read', modernCall('doctrine_evaluate'))]) {
      const res = await a.request(post(evaluateArgs, headers));
      expect(res.status).toBe(403);
      expect(res.headers.get('x-signet-insufficient-scope')).toBe('signet:evaluate');
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Forbidden: insufficient scope: this request needs signet:evaluate',
          data: { required_scopes: ['signet:evaluate'] },
        },
        id: 7,
      });
    }
    // deployment_check evaluates too: the same scope by default.
    const check = await a.request(post(toolCall('deployment_check'), asSubject('carol', 'signet:read')));
    expect(check.status).toBe(403);
    expect(check.headers.get('x-signet-insufficient-scope')).toBe('signet:evaluate');
    // A token without any Signet scope reads nothing either; lifecycle still answers.
    expect(
      (await a.request(post(toolCall('doctrine_info'), asSubject('carol', 'openid')))).headers.get('x-signet-insufficient-scope'),
    ).toBe('signet:read');
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expect((await a.request(post(init, asSubject('carol', 'openid')))).status).toBe(200);
    // With the scope, the same call runs and is signed.
    const modern = { ...evaluateArgs, params: { ...evaluateArgs.params, _meta: ENVELOPE } };
    const ok = await a.request(post(modern, asSubject('carol', 'signet:evaluate', modernCall('doctrine_evaluate'))));
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(events.slice(0, 2).map((e) => e.outcome)).toEqual(['insufficient_scope', 'insufficient_scope']);
  });

  it('never scopes an API key or a request without a principal', async () => {
    const a = app({ proxySecret: SECRET });
    const key = { 'x-signet-proxy-auth': SECRET, 'x-forwarded-for': '198.51.100.9', 'x-signet-key-id': 'abcd1234' };
    expect((await a.request(post(evaluateArgs, key))).status).toBe(200);
    expect((await app().request(post(evaluateArgs))).status).toBe(200);
  });

  it('takes a configured map and hierarchy, and refuses a malformed one naming the variable', () => {
    const custom = loadConfig({ SIGNET_OAUTH_SCOPE_MAP: 'doctrine_search=search, *=read', SIGNET_OAUTH_SCOPE_IMPLIES: 'admin=read search' })
      .http.oauthScopes;
    expect(missingScopes(custom, toolCall('doctrine_search'), new Set(['read']))).toEqual(['search']);
    expect(missingScopes(custom, toolCall('doctrine_search'), new Set(['admin']))).toEqual([]);
    expect(() => loadConfig({ SIGNET_OAUTH_SCOPE_MAP: 'doctrine_search' })).toThrow(/SIGNET_OAUTH_SCOPE_MAP must list tool=scope/);
    expect(() => loadConfig({ SIGNET_OAUTH_SCOPE_MAP: 'x=a"b' })).toThrow(/SIGNET_OAUTH_SCOPE_MAP/);
    expect(() => loadConfig({ SIGNET_OAUTH_SCOPE_IMPLIES: 'a=b,a=c' })).toThrow(/SIGNET_OAUTH_SCOPE_IMPLIES .*each scope once/);
  });

  it('takes the issuer exactly as its tokens name it and the resource in canonical form, naming the variable otherwise', () => {
    const env = {
      SIGNET_AUTH_MODE: 'oauth',
      SIGNET_OAUTH_ISSUER: 'https://tenant.example.auth0.com/',
      SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp',
    };
    expect(loadConfig(env).oauth).toMatchObject({
      issuer: 'https://tenant.example.auth0.com/',
      audiences: ['https://mcp.example.org/mcp'],
    });
    expect(() => loadConfig({ ...env, SIGNET_OAUTH_RESOURCE: 'https://mcp.example.org/mcp/' })).toThrow(
      /SIGNET_OAUTH_RESOURCE must not end with a slash/,
    );
    expect(() => loadConfig({ ...env, SIGNET_OAUTH_ISSUER: 'http://idp.example.org' })).toThrow(
      /SIGNET_OAUTH_ISSUER must be an https:\/\/ URL/,
    );
    expect(() => loadConfig({ ...env, SIGNET_OAUTH_ISSUER: '' })).toThrow(/SIGNET_OAUTH_ISSUER is required with SIGNET_AUTH_MODE=oauth/);
    expect(() => loadConfig({ ...env, SIGNET_OAUTH_ALGORITHMS: 'RS256,HS256' })).toThrow(/SIGNET_OAUTH_ALGORITHMS must list asymmetric/);
    expect(loadConfig({ SIGNET_OAUTH_ISSUER: 'https://idp.example.org' }).oauth).toBeNull(); // keys mode: no verifier
  });
});
