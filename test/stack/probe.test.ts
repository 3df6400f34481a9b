// The live probe against the process stack (the built server behind Debian's nginx, rendered by
// proxy/render.sh): keys over http, HTTPS at the proxy, and OAuth (keys+oauth) with a token. The
// compose stack runs the same suite from test/stack/compose.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probe } from '../../src/probe/probe.js';
import type { ProbeHttpEvidence, ProbeTlsEvidence } from '../../src/probe/types.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { startJwtIssuer } from '../helpers/jwt-issuer.js';
import { selfSignedCert } from '../helpers/openssl.js';
import { CLI } from '../helpers/paths.js';
import { evidence, expectWellFormed, fact, sourcesOf } from '../helpers/probe.js';
import { freePort } from '../helpers/proxy-process.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { defineProbeSuite } from './probe-suite.js';
import { startProcessStack } from './process-stack.js';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

defineProbeSuite('process stack', async () => {
  // A stack per probe: the anonymous probe's refusals must not spend the keyed one's budget.
  const s = await startProcessStack();
  stops.push(s.stop);
  return { url: `http://127.0.0.1:${s.port}/mcp`, key: s.key };
});

describe('probe: process stack, --rate-limit', () => {
  it('trips the refused-key limit (SIGNET_PROXY_AUTH_FAILURES_BURST 20) and reads its Retry-After, as compose.json states', async () => {
    const s = await startProcessStack();
    stops.push(s.stop);
    const r = await probe(`http://127.0.0.1:${s.port}/mcp`, { credential: { kind: 'key', value: s.key }, exerciseRateLimit: true });
    expectWellFormed(r, { secret: s.key, maxRequests: 160 });
    expect(fact(r, 'rate_limit.unauthenticated_limited')).toBe(true);
    expect(fact(r, 'rate_limit.retry_after_header')).toBe(true);
    const run = evidence(r, 'rate.invalid-credential') as ProbeHttpEvidence;
    // The burst, less what the probe's own checks had refused already, then the 429.
    expect(run.repeated!.count).toBeLessThanOrEqual(21);
    expect(run.repeated!.statuses['429']).toBe(1);
    expect((evidence(r, 'rate.limited') as ProbeHttpEvidence).response?.headers).toContainEqual(['retry-after', '1']);
  });
});

describe('probe: the recipe in docs/checking.md', () => {
  it('runs as written, the key read from a file, and writes the result', async () => {
    const s = await startProcessStack();
    stops.push(s.stop);
    const work = tempDir('signet-probe-recipe-');
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'signet'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    writeFileSync(join(work, 'key.txt'), `${s.key}\n`, { mode: 0o600 });
    const out = execFileSync('sh', ['-c', docRecipe('checking.md', 'probe')], {
      cwd: work,
      env: cleanEnv({ PATH: `${bin}:${process.env['PATH'] ?? ''}`, SIGNET_URL: `http://127.0.0.1:${s.port}/mcp` }),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toBe('');
    const r = JSON.parse(readFileSync(join(work, 'probe.json'), 'utf8'));
    expect(r.credential).toBe('key');
    expect(r.facts.transport.protocol_revisions).toHaveLength(5);
    expect(readFileSync(join(work, 'probe.json'), 'utf8')).not.toContain(s.key);
  });
});

describe('probe: process stack over HTTPS (SIGNET_TLS_DIR)', () => {
  it('reads TLS 1.2 as the lowest version, HSTS on every answer, and the certificate it verified with --ca', async () => {
    const port = await freePort();
    const tls = tempDir('signet-probe-tls-');
    selfSignedCert({
      keyFile: join(tls, 'tls.key'),
      certFile: join(tls, 'tls.crt'),
      commonName: '127.0.0.1',
      altNames: 'IP:127.0.0.1',
      days: 2,
    });
    const s = await startProcessStack({ SIGNET_TLS_DIR: tls }, {}, 'static', port);
    try {
      const r = await probe(`https://127.0.0.1:${port}/mcp`, {
        credential: { kind: 'key', value: s.key },
        ca: readFileSync(join(tls, 'tls.crt'), 'utf8'),
      });
      expectWellFormed(r, { secret: s.key });
      // HTTPS *only* (doctrine 1.3) needs a look at other origins, which the probe never takes.
      expect(r.notes['tls.enabled']).toMatch(/^served over HTTPS here \(tls\.1\.3\); whether a plain http listener/);
      // proxy/docker-entrypoint.d/34-signet-tls.envsh: ssl_protocols TLSv1.2 TLSv1.3.
      expect(fact(r, 'tls.min_version')).toBe('1.2');
      expect(sourcesOf(r, 'tls.min_version')).toEqual(['tls.1.2', 'tls.1.1', 'tls.1.0']);
      expect((evidence(r, 'tls.1.3') as ProbeTlsEvidence).certificate).toMatchObject({ verified: true, subject: 'CN=127.0.0.1' });
      // add_header Strict-Transport-Security "max-age=31536000" always: on 200s, 401s, 403s, 404s and 413s alike.
      expect(fact(r, 'tls.hsts')).toBe(true);
      const statuses = /\(([\d, ]+)\)/.exec(r.sources['tls.hsts']![0]!.why)![1]!.split(', ');
      expect(statuses).toEqual(expect.arrayContaining(['200', '401', '403', '404', '413']));
      expect(fact(r, 'transport.protocol_revisions')).toHaveLength(5);
    } finally {
      await s.stop();
    }
  });
});

describe('probe: process stack with OAuth (SIGNET_AUTH_MODE=keys+oauth)', () => {
  it('finds the protected resource metadata the 401 names, and is served with an access token', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const issuer = await startJwtIssuer(resource);
    const oauth = { SIGNET_AUTH_MODE: 'keys+oauth', SIGNET_OAUTH_ISSUER: issuer.issuer, SIGNET_OAUTH_RESOURCE: resource };
    // The auth check, started by the stack, checks keys and tokens alike.
    const s = await startProcessStack(oauth, {}, 'store', port);
    try {
      const token = await issuer.token();
      const r = await probe(resource, { credential: { kind: 'token', value: token } });
      expectWellFormed(r, { secret: token });
      expect(r.credential).toBe('token');
      expect(fact(r, 'authentication.required')).toBe(true);
      expect(fact(r, 'http.oauth_discovery_endpoints')).toBe('metadata');
      expect(fact(r, 'http.protected_resource_metadata_discoverable')).toBe(true);
      expect(r.sources['http.protected_resource_metadata_discoverable']![0]!.why).toContain(issuer.issuer);
      // The issuer is on another origin: its metadata is not fetched, so what it advertises stays open.
      expect(r.notes['authentication.oauth_client_id_metadata_documents']).toContain(`the resource names ${issuer.issuer}`);
      // Served with the token: the server behind the proxy answered every revision.
      expect(fact(r, 'transport.protocol_revisions')).toHaveLength(5);
      expect(fact(r, 'authentication.keys_in_query_string')).toBe(false);
      // The authorization server is on another origin: named, never fetched.
      expect(r.evidence.every((e) => e.kind !== 'http' || e.request.url.startsWith(`http://127.0.0.1:${port}/`))).toBe(true);
    } finally {
      await s.stop();
      await issuer.close();
    }
  });
});
