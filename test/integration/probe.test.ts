// The live probe (src/probe/) against three kinds of server: one written weak on purpose for
// this test, an official MCP server nobody here wrote (@modelcontextprotocol/server-everything
// in streamable HTTP mode), and Signet's own server alone (the stacks behind nginx are in
// test/stack/probe.test.ts). Each asserts the facts and the exchanges that decided them, against
// what that server is written or documented to do.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { PROTOCOL_REVISIONS } from '../../src/probe/mcp.js';
import { probe } from '../../src/probe/probe.js';
import type { ProbeHttpEvidence, ProbeTlsEvidence } from '../../src/probe/types.js';
import { cleanEnv } from '../helpers/clean-env.js';
import { startHttpServer } from '../helpers/http-server.js';
import { selfSignedCert } from '../helpers/openssl.js';
import { CLI, DEFAULT_DOCTRINE } from '../helpers/paths.js';
import { evidence, expectWellFormed, fact, sourcesOf } from '../helpers/probe.js';
import { signetDeployment } from '../helpers/signet-deployments.js';
import { tempDir } from '../helpers/tmp-doctrine.js';
import { startWeakServer } from '../helpers/weak-mcp-server.js';

const dir = tempDir('signet-probe-');

function tlsPair(name: string) {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  selfSignedCert({ keyFile, certFile, commonName: 'localhost', altNames: 'IP:127.0.0.1,DNS:localhost', days: 2 });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

describe('probe: a deliberately weak server', () => {
  it('open over http: finds every missing defence, each with the exchange that shows it', async () => {
    const weak = await startWeakServer();
    try {
      const r = await probe(weak.url);
      expectWellFormed(r);
      expect(fact(r, 'authentication.required')).toBe(false);
      expect(fact(r, 'authentication.method')).toBe('none');
      expect(fact(r, 'http.origin_validation')).toBe(false);
      expect(sourcesOf(r, 'http.origin_validation')).toEqual(['origin.foreign-no-credential']);
      expect((evidence(r, 'origin.foreign-no-credential') as ProbeHttpEvidence).request.headers).toContainEqual([
        'origin',
        'https://evil.example',
      ]);
      expect(fact(r, 'http.allowed_hosts_configured')).toBe(false);
      expect((evidence(r, 'host.foreign') as ProbeHttpEvidence).request.headers).toContainEqual(['host', 'evil.example']);
      expect(fact(r, 'http.cors_allow_any_origin')).toBe(true);
      expect(fact(r, 'http.error_details_exposed')).toBe(true);
      expect(r.sources['http.error_details_exposed']![0]).toEqual({
        probe: 'errors.malformed-json',
        why: 'the answer holds a JavaScript stack trace',
      });
      // No body limit: the biggest common limit's size + 1 was served, so whatever limit there is
      // lies above the 10 MiB HTTP-003 accepts: 0 (doctrine 1.3.0, http.max_body_bytes).
      expect(fact(r, 'http.max_body_bytes')).toBe(0);
      expect(sourcesOf(r, 'http.max_body_bytes')).toEqual(['body.10485761']);
      expect(r.inexpressible).toEqual([]);
      expect(fact(r, 'transport.protocol_revisions')).toEqual([...PROTOCOL_REVISIONS]);
      expect(fact(r, 'http.issues_session_ids')).toBe(true);
      expect(fact(r, 'http.mcp_headers_validated')).toBe(false);
      expect(sourcesOf(r, 'http.mcp_headers_validated')).toEqual(['mismatch.method']);
      expect(fact(r, 'transport.legacy_sse')).toBe(true);
      expect(sourcesOf(r, 'transport.legacy_sse')).toEqual(['sse.well-known-path']);
      expect(fact(r, 'tools.read_only_annotations')).toBe(false);
      expect(r.sources['tools.read_only_annotations']![0]!.why).toMatch(/run_shell/);
      expect(fact(r, 'tools.input_schemas_strict')).toBe(false);
      expect(r.undecided).toContain('tools.output_schemas_declared');
      expect(fact(r, 'rate_limit.ratelimit_headers')).toBe(false);
      // A key server that serves OAuth metadata, and for another resource at that.
      expect(fact(r, 'http.oauth_discovery_endpoints')).toBe('metadata');
      expect(fact(r, 'http.protected_resource_metadata_discoverable')).toBe(false);
      // Its authorization server is on its own origin: what the metadata leaves out is decided.
      expect(fact(r, 'authentication.oauth_client_id_metadata_documents')).toBe(false);
      expect(fact(r, 'authentication.oauth_iss_in_authorization_response')).toBe(false);
      expect(sourcesOf(r, 'authentication.oauth_iss_in_authorization_response')).toEqual(['discovery.authorization-server']);
      expect(fact(r, 'authentication.oauth_pkce_s256_required')).toBe(false);
      expect(fact(r, 'authentication.oauth_endpoints_https')).toBe(false);
      expect(r.sources['authentication.oauth_endpoints_https']![0]!.why).toBe(
        'http:// URLs in the metadata: authorization_endpoint, issuer, token_endpoint',
      );
      expect(fact(r, 'tls.enabled')).toBe(false);
      expect(fact(r, 'exposure.endpoint_address_class')).toBe('loopback');
      // Nothing the probe could not stand behind: no credential, so nothing about one in the query.
      expect(r.notes['authentication.keys_in_query_string']).toMatch(/credential/);
    } finally {
      await weak.close();
    }
  });

  it('over TLS 1.0 with a key it also takes from the query: the key is sent only to a verified certificate, and never shown', async () => {
    const pair = tlsPair('weak');
    const key = newApiKey();
    const weak = await startWeakServer({ key, tls: pair });
    try {
      const r = await probe(weak.url, { credential: { kind: 'key', value: key }, ca: pair.cert });
      expectWellFormed(r, { secret: key });
      expect(fact(r, 'authentication.required')).toBe(true);
      expect(sourcesOf(r, 'authentication.required')).toEqual(['auth.no-credential', 'auth.invalid-credential']);
      expect(r.notes['authentication.method']).toMatch(/not which kind/);
      expect(fact(r, 'authentication.keys_in_query_string')).toBe(true);
      expect((evidence(r, 'query.api_key') as ProbeHttpEvidence).request.url).toMatch(/\?api_key=\[credential\]$/);
      expect(fact(r, 'http.session_ids_used_for_auth')).toBe(true);
      expect(sourcesOf(r, 'http.session_ids_used_for_auth')).toEqual(['session.replay-no-credential']);
      expect(r.undecided).toContain('tls.enabled');
      expect(fact(r, 'tls.min_version')).toBe('1.0');
      expect((evidence(r, 'tls.1.0') as ProbeTlsEvidence).negotiated).toBe('TLSv1');
      expect((evidence(r, 'tls.1.3') as ProbeTlsEvidence).certificate).toMatchObject({ verified: true, subject: 'CN=localhost' });
      expect(fact(r, 'tls.hsts')).toBe(false);
      // The credential is shown as a placeholder wherever it was sent.
      const withKey = r.evidence.filter(
        (e): e is ProbeHttpEvidence =>
          e.kind === 'http' && e.request.headers.some(([n, v]) => n === 'authorization' && v === 'Bearer [credential]'),
      );
      expect(withKey.length).toBeGreaterThan(10);
    } finally {
      await weak.close();
    }
  });

  it('over TLS with a certificate it cannot verify: probes without the key, says why, and sends the key nowhere', async () => {
    const pair = tlsPair('untrusted');
    const key = newApiKey();
    const weak = await startWeakServer({ key, tls: pair });
    try {
      const r = await probe(weak.url, { credential: { kind: 'key', value: key } });
      expectWellFormed(r, { secret: key });
      expect((evidence(r, 'tls.1.3') as ProbeTlsEvidence).certificate).toMatchObject({
        verified: false,
        verify_error: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
      expect(fact(r, 'authentication.required')).toBe(true);
      expect(fact(r, 'tls.min_version')).toBe('1.0');
      expect(r.notes['transport.protocol_revisions']).toMatch(/certificate did not verify .*--ca/);
      expect(r.notes['tools.input_schemas_strict']).toMatch(/certificate did not verify/);
      const sentKey = r.evidence.some(
        (e) => e.kind === 'http' && e.request.headers.some(([n, v]) => n === 'authorization' && v.includes('[credential]')),
      );
      expect(sentKey).toBe(false);
    } finally {
      await weak.close();
    }
  });

  it('with --rate-limit, sends 100 refused credentials and finds no limit', async () => {
    const weak = await startWeakServer({ key: newApiKey() });
    try {
      const r = await probe(weak.url, { exerciseRateLimit: true });
      expectWellFormed(r, { maxRequests: 160 });
      expect(fact(r, 'rate_limit.unauthenticated_limited')).toBe(false);
      expect((evidence(r, 'rate.invalid-credential') as ProbeHttpEvidence).repeated).toEqual({ count: 100, statuses: { '401': 100 } });
      expect(r.notes['rate_limit.retry_after_header']).toBe('no request was limited');
      // One record stands for the run: the evidence stays readable.
      expect(r.evidence.filter((e) => e.id.startsWith('rate.'))).toHaveLength(1);
    } finally {
      await weak.close();
    }
  });

  it('stops at its request budget and deadline, leaving the rest undecided with the reason', async () => {
    const weak = await startWeakServer();
    try {
      const r = await probe(weak.url, { maxRequests: 8 });
      expectWellFormed(r, { maxRequests: 8 });
      expect(r.evidence).toHaveLength(8);
      expect(r.notes['tools.read_only_annotations']).toBe('not probed: the request budget is spent');
    } finally {
      await weak.close();
    }
  });
});

/** server-everything prints the port it was given, not the one it got: a preload reports the real one. */
const REPORT_PORT = `data:text/javascript,${encodeURIComponent(
  "import net from 'node:net'; const listen = net.Server.prototype.listen; net.Server.prototype.listen = function (...a) { this.once('listening', () => process.stderr.write('probe-test-port ' + this.address().port + '\\n')); return listen.apply(this, a); };",
)}`;

describe('probe: an official MCP server (@modelcontextprotocol/server-everything, streamable HTTP)', () => {
  let child: ChildProcess;
  let url = '';

  beforeAll(async () => {
    const main = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
    child = spawn(process.execPath, ['--import', REPORT_PORT, main, 'streamableHttp'], {
      env: cleanEnv({ PORT: '0' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c;
        const m = /probe-test-port (\d+)/.exec(err);
        if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
      });
      child.on('exit', (code) => reject(new Error(`server-everything exited ${code}: ${err}`)));
    });
  });
  afterAll(() => void child?.kill());

  it('reads what the SDK v1 transport does by default: stateful sessions, no Origin or Host check, CORS *, the SDK body limit', async () => {
    const r = await probe(url);
    expectWellFormed(r);
    expect(fact(r, 'authentication.required')).toBe(false);
    // The revisions the SDK it is built on lists, as far as the facts can name them.
    expect(fact(r, 'transport.protocol_revisions')).toEqual(PROTOCOL_REVISIONS.filter((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v)));
    expect(fact(r, 'http.issues_session_ids')).toBe(true);
    expect(fact(r, 'http.origin_validation')).toBe(false);
    expect(fact(r, 'http.allowed_hosts_configured')).toBe(false);
    // Its express app: cors({ origin: '*' }).
    expect(fact(r, 'http.cors_allow_any_origin')).toBe(true);
    expect(fact(r, 'http.max_body_bytes')).toBe(DEFAULT_MAX_REQUEST_BODY_SIZE);
    expect(fact(r, 'http.error_details_exposed')).toBe(false);
    expect(fact(r, 'transport.legacy_sse')).toBe(false);
    expect(r.notes['http.mcp_headers_validated']).toMatch(/does not accept 2026-07-28/);
    expect(fact(r, 'tools.input_schemas_strict')).toBe(false);
    expect(fact(r, 'http.oauth_discovery_endpoints')).toBe('not_found');
    // The probe closes every session it opened.
    const opened = r.evidence.filter(
      (e) => e.kind === 'http' && e.response?.headers.some(([n]) => n === 'mcp-session-id') && e.request.method === 'POST',
    );
    const closed = r.evidence.filter((e) => e.kind === 'http' && e.request.method === 'DELETE' && e.response?.status === 200);
    expect(closed.length).toBeGreaterThanOrEqual(opened.filter((e) => e.id.startsWith('revision.') || e.id.startsWith('auth.')).length);
    // Session ids never appear in the evidence.
    expect(JSON.stringify(r)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"\]/);
  });
});

describe('probe: Signet served alone (no proxy)', () => {
  it('gives a body limit between the common values as the bound its refusals show', async () => {
    const server = await startHttpServer({
      SIGNET_DATA_DIR: join(dir, 'alone-bound'),
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_MAX_BODY_BYTES: '500000',
    });
    try {
      const r = await probe(server.url);
      // 102,401 bytes served, 1,000,001 and 1,000,000 refused: nothing above 999,999 reaches the parser.
      expect(fact(r, 'http.max_body_bytes')).toBe(999_999);
      expect(sourcesOf(r, 'http.max_body_bytes')).toEqual(['body.102401', 'body.1000000', 'body.1000001']);
    } finally {
      await server.stop();
    }
  });

  it('reads the defences docs/http.md describes, and the body limit it is configured with', async () => {
    const server = await startHttpServer({
      SIGNET_DATA_DIR: join(dir, 'alone'),
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_MAX_BODY_BYTES: '102400',
    });
    try {
      const r = await probe(server.url);
      expectWellFormed(r);
      expect(fact(r, 'authentication.required')).toBe(false);
      expect(fact(r, 'transport.protocol_revisions')).toEqual([...PROTOCOL_REVISIONS]);
      expect(fact(r, 'http.issues_session_ids')).toBe(false);
      expect(fact(r, 'http.origin_validation')).toBe(true);
      expect(fact(r, 'http.allowed_hosts_configured')).toBe(true);
      expect(fact(r, 'http.cors_allow_any_origin')).toBe(false);
      expect(fact(r, 'http.max_body_bytes')).toBe(102_400);
      expect(fact(r, 'http.mcp_headers_validated')).toBe(true);
      expect(sourcesOf(r, 'http.mcp_headers_validated')).toEqual(['mismatch.method', 'mismatch.name', 'mismatch.missing-method']);
      expect(fact(r, 'http.error_details_exposed')).toBe(false);
      expect(fact(r, 'http.list_cache_scope')).toBe('public');
      expect(fact(r, 'transport.legacy_sse')).toBe(false);
      // What Signet's compose deployment states about the tools (collected and declared), read from tools/list.
      const declared = signetDeployment('compose').facts['tools'] as Record<string, unknown>;
      for (const name of ['read_only_annotations', 'output_schemas_declared', 'input_schemas_strict', 'sensitive_params_as_headers']) {
        expect(fact(r, `tools.${name}`), name).toBe(declared[name]);
      }
      expect(fact(r, 'rate_limit.ratelimit_headers')).toBe(true);
    } finally {
      await server.stop();
    }
  });
});

describe('signet probe (CLI)', () => {
  const runCli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile(process.execPath, [CLI, 'probe', ...args], { env: cleanEnv(env) }, (error, out, err) =>
        resolve({ code: error ? Number(error.code) : 0, out, err }),
      );
    });

  it('takes the key from the environment or a file, prints facts and evidence, and never the key', async () => {
    const key = newApiKey();
    const weak = await startWeakServer({ key });
    try {
      const viaEnv = await runCli([weak.url, '--json'], { SIGNET_PROBE_KEY: key });
      expect(viaEnv.code, viaEnv.err).toBe(0);
      const r = JSON.parse(viaEnv.out);
      expect(r.format).toBe('signet-probe/1');
      expect(r.credential).toBe('key');
      expect(r.facts.authentication.keys_in_query_string).toBe(true);
      expect(viaEnv.out + viaEnv.err).not.toContain(key);
      const file = join(dir, 'key.txt');
      writeFileSync(file, `${key}\n`, { mode: 0o600 });
      const viaFile = await runCli([weak.url, '--key-file', file]);
      expect(viaFile.code, viaFile.err).toBe(0);
      expect(viaFile.out).toMatch(/^ {2}authentication\.keys_in_query_string = true$/m);
      expect(viaFile.out).toMatch(/query\.api_key: the credential in \?api_key= was accepted/);
      expect(viaFile.out + viaFile.err).not.toContain(key);
    } finally {
      await weak.close();
    }
  });

  it('exits 2 on bad usage without echoing a credential, and 1 when nothing answers', async () => {
    const both = await runCli(['http://127.0.0.1:1/mcp', '--key', 'sgnk_a', '--token', 'eyJhbGciOi.secret.token']);
    expect(both).toMatchObject({ code: 2, out: '' });
    expect(both.err).toMatch(/give one credential, not --key and --token/);
    expect(both.err).not.toContain('eyJhbGciOi');
    const spaced = await runCli(['http://127.0.0.1:1/mcp', '--token', 'two words']);
    expect(spaced.code).toBe(2);
    expect(spaced.err).not.toContain('two words');
    expect((await runCli(['ftp://127.0.0.1/mcp'])).code).toBe(2);
    expect((await runCli(['http://127.0.0.1:1/mcp', '--timeout', 'soon'])).code).toBe(2);
    const nobody = await runCli(['http://127.0.0.1:1/mcp', '--timeout', '2s']);
    expect(nobody.code).toBe(1);
    expect(nobody.out).toMatch(/connection refused/);
  });
});
