// The OAuth stack as a team runs it (issue 19): docker-compose.yml with deploy/compose.oauth.yml
// (keys+oauth, the auth check on its own network), built and started by testcontainers,
// with a real authorization server in a container (test/stack/compose.oauth-test.yml,
// oidc-provider; test only). The official MCP SDK clients run the whole flow from the host
// through the published proxy; API keys keep working beside tokens.
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { type StartedDockerComposeEnvironment, Wait } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNED_MESSAGE } from '../../src/signing/format.js';
import {
  configureTestcontainers,
  docker,
  dockerReachable,
  removeComposeProject,
  run,
  signetCompose,
  testSubnet,
} from '../helpers/docker.js';
import { connectWithOAuth, HeadlessOAuthClient } from '../helpers/mcp-oauth.js';
import { opensslVerify } from '../helpers/openssl.js';
import { freePort } from '../helpers/proxy-process.js';
import { defineEdgeFindingsSuite, type EdgeIssuer } from './edge-findings-suite.js';

configureTestcontainers();
const reachable = dockerReachable();
const project = `signet-oauth-${randomBytes(4).toString('hex')}`;

describe.runIf(reachable)('compose OAuth stack (docker-compose.yml + deploy/compose.oauth.yml, oidc-provider as the issuer)', () => {
  let env: StartedDockerComposeEnvironment | null = null;
  let resource = '';
  let issuer = '';
  let metadataUrl = '';

  beforeAll(async () => {
    const port = await freePort();
    const issuerPort = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    issuer = `http://127.0.0.1:${issuerPort}`;
    metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
    env = await signetCompose(['docker-compose.yml', 'deploy/compose.oauth.yml', 'test/stack/compose.oauth-test.yml'], project, {
      SIGNET_PORT: String(port),
      SIGNET_API_KEY: '',
      SIGNET_BACKEND_SUBNET: testSubnet(),
      SIGNET_OAUTH_ISSUER: issuer,
      SIGNET_OAUTH_RESOURCE: resource,
      SIGNET_TEST_ISSUER_PORT: String(issuerPort),
    })
      .withWaitStrategy('issuer-1', Wait.forLogMessage(/issuer listening/))
      .withWaitStrategy('auth-1', Wait.forHealthCheck())
      .up();
  }, 600_000);
  afterAll(async () => {
    if (env) await env.down({ removeVolumes: true, timeout: 10_000 });
    else await removeComposeProject(project);
  }, 120_000);

  const logs = async (service: string) => {
    const r = await run('docker', ['logs', `${project}-${service}-1`], { maxBuffer: 64 * 1024 * 1024 });
    return r.stdout + r.stderr;
  };
  const post = (headers: Record<string, string>) =>
    fetch(resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doctrine_info', arguments: {} } }),
    });

  it('answers 401 with the challenge and serves the metadata from configuration', async () => {
    const res = await post({ host: 'evil.example' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}", scope="signet:read"`);
    const meta = (await (await fetch(metadataUrl, { headers: { 'x-forwarded-host': 'evil.example' } })).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ resource, authorization_servers: [issuer], bearer_methods_supported: ['header'] });
    expect(meta['scopes_supported']).not.toContain('offline_access');
  });

  it('runs the whole flow with the v2 client: signed calls as alice, a step-up, a refresh; the token never reaches signet or a log', async () => {
    const oauth = new HeadlessOAuthClient('alice', issuer);
    const session = await connectWithOAuth('v2', resource, oauth);
    expect(session.protocolVersion()).toBe('2026-07-28');
    expect(oauth.log).toEqual(expect.arrayContaining(['registered', 'signed in', 'consented', 'authorized', 'tokens']));
    const first = oauth.accessToken()!;
    expect([decodeJwt(first).aud].flat()).toContain(resource);
    for (const [name, args] of [
      ['doctrine_info', {}],
      ['doctrine_evaluate', { facts: { transport: { kind: 'stdio' } } }],
    ] as const) {
      const r = await session.callTool(name, args);
      const footer = (r['structuredContent'] as { footer: Record<string, string> }).footer;
      expect(
        opensslVerify(
          footer['doctrine_public_key']!,
          SIGNED_MESSAGE.output(footer['signature_format']!, footer['output_hash']!),
          footer['output_signature']!,
        ),
      ).toBe(true);
    }
    expect(oauth.log).toContain('step-up');
    oauth.expireAccessToken();
    await session.callTool('doctrine_info', {});
    expect(oauth.log).toContain('refreshed');
    await session.close();
    const signetLogs = await logs('signet');
    expect(signetLogs).toMatch(/"oauth_sub":"alice"/);
    for (const service of ['signet', 'proxy', 'auth']) {
      const text = await logs(service);
      expect(text.includes(first.split('.')[2]!), service).toBe(false);
      expect(text.includes(oauth.accessToken()!.split('.')[2]!), service).toBe(false);
    }
  });

  it('runs the flow with the v1 client too', async () => {
    const session = await connectWithOAuth('v1', resource, new HeadlessOAuthClient('bob', issuer));
    expect(session.protocolVersion()).toBe('2025-11-25');
    expect((await session.listTools()).tools.length).toBeGreaterThan(3);
    await session.close();
  });

  it('keeps the API key of the store working beside tokens, under the scheme in any case (RFC 9110 §11.1)', async () => {
    const key = (await env!.getContainer('auth-1').exec(['cat', '/keys/initial-api-key'])).output.trim();
    expect(key).toMatch(/^sgnk_/);
    expect((await post({ authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await post({ authorization: `bearer ${key}` })).status).toBe(200);
    expect((await post({ authorization: `bearer ${key.toUpperCase()}` })).status).toBe(401);
  });

  // The pen test's edge findings (issue 28) against this stack, from the Docker host: every local
  // client shares the gateway address here. The test issuer signs the tokens a case needs.
  defineEdgeFindingsSuite('compose OAuth stack', async () => {
    const control = (path: string, payload: unknown) =>
      fetch(`${issuer}/_test/${path}`, { method: 'POST', body: JSON.stringify(payload) }).then(
        (r) => r.json() as Promise<{ token: string }>,
      );
    const edgeIssuer: EdgeIssuer = {
      token: async (claims = {}, header = {}, how = {}) => (await control('sign', { claims, header, ...how })).token,
      jwksFetches: async () => ((await (await fetch(`${issuer}/_test/stats`)).json()) as { jwks_fetches: number }).jwks_fetches,
      setJwks: async (mode) => {
        await control('jwks', { mode });
      },
    };
    // The auth check shares the issuer's network namespace here (compose.oauth-test.yml): its
    // address is the issuer container's, which the Docker host reaches on the egress network.
    const networks = JSON.parse(await docker('inspect', `${project}-issuer-1`))[0].NetworkSettings.Networks;
    return {
      baseUrl: new URL(resource).origin,
      key: (await env!.getContainer('auth-1').exec(['cat', '/keys/initial-api-key'])).output.trim(),
      issuer: edgeIssuer,
      jwksCooldownSeconds: 2,
      addressFor: () => undefined,
      authCheckUrl: `http://${networks[`${project}_egress`].IPAddress}:3100`,
      authCheckLogs: () => logs('auth'),
      stop: async () => {},
    };
  });
});
