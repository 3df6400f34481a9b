// The hop from the proxy to Signet over HTTPS (doctrine TLS-006; what the Kubernetes manifests
// ship): Signet serves the certificate the dev recipe of docs/operations.md makes, the real
// nginx verifies it for the name `signet` against the recipe's CA. Nothing crosses in the
// clear, a proxy that trusts another CA or expects another name gets no answer from Signet,
// and a renewed certificate is picked up without a restart or a failed call.
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys/format.js';
import { verifyOutput } from '../../src/signing/verify.js';
import { startAuthCheck } from '../helpers/auth-check-process.js';
import { docRecipe } from '../helpers/doc-recipe.js';
import { rawRequest, rpc, type ServerProcess, startHttpServer } from '../helpers/http-server.js';
import { startJwtIssuer } from '../helpers/jwt-issuer.js';
import { selfSignedCert } from '../helpers/openssl.js';
import { CLI, DEFAULT_DOCTRINE, ROOT } from '../helpers/paths.js';
import { freePort, type NginxProcess, processProxyEnv, renderProxy, startNginx } from '../helpers/proxy-process.js';
import { proxySecretFile } from '../helpers/proxy-secret.js';
import { tempDir } from '../helpers/tmp-doctrine.js';

const KEY = newApiKey();
const dir = tempDir('signet-backend-tls-');
const certs = join(dir, 'deploy/kubernetes/overlays/dev/secrets');
let server: ServerProcess;
const proxies: NginxProcess[] = [];

/** A proxy in front of the server: static key, HTTPS to Signet verified against `caFile` for `name`. */
async function proxy(caFile: string, name = 'signet', extra: Record<string, string> = {}, listenPort?: number): Promise<string> {
  const pdir = tempDir('signet-backend-tls-proxy-');
  const port = listenPort ?? (await freePort());
  const rendered = renderProxy({
    ...processProxyEnv(pdir, port, server.port),
    // The server's secret: the same file both read.
    SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
    SIGNET_API_KEY: KEY,
    SIGNET_PROXY_UPSTREAM_CA_FILE: caFile,
    SIGNET_PROXY_UPSTREAM_TLS_NAME: name,
    ...extra,
  });
  if (rendered.code !== 0) throw new Error(rendered.stderr);
  proxies.push(await startNginx(pdir, port));
  return `http://127.0.0.1:${port}/mcp`;
}

const call = (url: string, id: number) =>
  rawRequest(url, {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, host: '127.0.0.1' },
    body: rpc('tools/call', { name: 'doctrine_info', arguments: {} }, id),
  });

/** The certificate the server presents on a new connection (no verification: we only look). */
function presented(): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: server.port, servername: 'signet', rejectUnauthorized: false }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.end();
      cert ? resolve(cert) : reject(new Error('no certificate'));
    });
    socket.on('error', reject);
  });
}

/** A new certificate for signet from the recipe's CA (what a renewal writes). */
function renew(into: string): void {
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: certs, stdio: 'pipe' });
  openssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=signet',
    '-keyout',
    `${into}.key`,
    '-out',
    `${into}.csr`,
  ]);
  writeFileSync(join(certs, `${into}.ext`), 'subjectAltName=DNS:signet\nextendedKeyUsage=serverAuth\n');
  openssl([
    'x509',
    '-req',
    '-in',
    `${into}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${into}.ext`,
    '-out',
    `${into}.crt`,
  ]);
}

describe('the hop from the proxy to Signet over HTTPS (TLS-006)', () => {
  beforeAll(async () => {
    execFileSync('bash', ['-e', '-o', 'pipefail', '-c', docRecipe('operations.md', 'dev-secrets')], { cwd: dir });
    server = await startHttpServer({
      SIGNET_DATA_DIR: join(dir, 'data'),
      SIGNET_DOCTRINE_DIR: DEFAULT_DOCTRINE,
      SIGNET_PROXY_SECRET_FILE: proxySecretFile(dir),
      SIGNET_ALLOWED_HOSTS: '127.0.0.1',
      SIGNET_TLS_CERT_FILE: join(certs, 'tls.crt'),
      SIGNET_TLS_KEY_FILE: join(certs, 'tls.key'),
    });
  }, 60_000);
  afterAll(async () => {
    for (const p of proxies) await p.stop();
    await server?.stop();
  });

  it('serves signed calls through the proxy, which verifies the certificate of the dev recipe', async () => {
    expect(server.logLines().find((l) => l['msg'] === 'signet ready')).toMatchObject({ tls: true, proxy_authenticated: true });
    const url = await proxy(join(certs, 'ca.crt'));
    for (let i = 1; i <= 3; i++) {
      const r = await call(url, i);
      expect(r.status, r.body).toBe(200);
      expect(verifyOutput(r.json().result).signature_valid).toBe(true);
    }
    // The proxy was believed (its secret arrived over the encrypted hop): its request id is logged.
    const line = await server.waitForLog((l) => l['msg'] === 'mcp request' && l['rpc_method'] === 'tools/call');
    expect(line).toMatchObject({ status: 200, client_ip: '127.0.0.1', req_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('answers nothing in the clear: a plain HTTP request to Signet gets no HTTP answer', async () => {
    await expect(rawRequest(`http://127.0.0.1:${server.port}/healthz`, { method: 'GET' })).rejects.toThrow();
    // The same request over TLS, verified as the proxy does, is answered.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/healthz',
          servername: 'signet',
          ca: readFileSync(join(certs, 'ca.crt')),
          headers: { host: 'localhost' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('gives a proxy that trusts another CA, or expects another name, no answer from Signet, and Signet sees no call', async () => {
    const other = tempDir('signet-other-ca-');
    selfSignedCert({
      keyFile: join(other, 'ca.key'),
      certFile: join(other, 'ca.crt'),
      commonName: 'other-ca',
      altNames: 'DNS:signet',
      days: 1,
    });
    const good = await proxy(join(certs, 'ca.crt'));
    const calls = () => server.logLines().filter((l) => l['msg'] === 'mcp request').length;
    const before = calls();
    for (const url of [await proxy(join(other, 'ca.crt')), await proxy(join(certs, 'ca.crt'), 'signet.elsewhere.svc')]) {
      const r = await call(url, 7);
      // The proxy's answer for an upstream it cannot use (errors.conf), never Signet's.
      expect(r.status).toBe(503);
      expect(r.body).toMatch(/Signet is not reachable right now/);
    }
    // Log lines come in request order: once the next good call is logged, nothing else was.
    expect((await call(good, 8)).status).toBe(200);
    await server.waitForLog(() => calls() > before);
    expect(calls()).toBe(before + 1);
    expect(proxies.at(-1)!.errorLog()).toMatch(/upstream SSL certificate does not match "signet.elsewhere.svc"|certificate verify failed/);
  });

  it('picks up a renewed certificate on SIGHUP with no failed call, and keeps the one in use when a renewal does not load', async () => {
    const url = await proxy(join(certs, 'ca.crt'));
    const first = await presented();
    renew('next');
    copyFileSync(join(certs, 'next.crt'), join(certs, 'tls.crt'));
    copyFileSync(join(certs, 'next.key'), join(certs, 'tls.key'));
    server.proc.kill('SIGHUP');
    await server.waitForLog((l) => l['msg'] === 'tls certificate reloaded');
    const second = await presented();
    expect(second.serialNumber).not.toBe(first.serialNumber);
    expect(second.checkIssued(new X509Certificate(readFileSync(join(certs, 'ca.crt'))))).toBe(true);
    for (let i = 1; i <= 3; i++) expect((await call(url, 100 + i)).status).toBe(200);
    // A half-written renewal (the key of another certificate): refused, the second pair stays.
    const secretKey = readFileSync(join(certs, 'ca.key'), 'utf8');
    copyFileSync(join(certs, 'ca.key'), join(certs, 'tls.key'));
    server.proc.kill('SIGHUP');
    const refused = await server.waitForLog((l) => l['msg'] === 'tls certificate not reloaded; the one in use stays');
    expect(String(refused['err'])).toMatch(/do not make a usable pair/);
    expect(server.logs()).not.toContain(secretKey.split('\n')[1]);
    expect((await presented()).serialNumber).toBe(second.serialNumber);
    expect((await call(url, 200)).status).toBe(200);
    expect(server.proc.exitCode).toBeNull();
  });

  it('sends access tokens to the auth check only over HTTPS verified with the same CA (OAuth at the proxy)', async () => {
    const proxyPort = await freePort();
    const resource = `http://127.0.0.1:${proxyPort}/mcp`;
    const issuer = await startJwtIssuer(resource);
    const oauthEnv = { SIGNET_AUTH_MODE: 'oauth', SIGNET_OAUTH_ISSUER: issuer.issuer, SIGNET_OAUTH_RESOURCE: resource };
    // The recipe's certificate for the auth check (in the dev overlay's secrets/auth).
    const verifierCerts = join(dir, 'deploy/kubernetes/overlays/dev/secrets/auth');
    const verifier = await startAuthCheck({
      ...oauthEnv,
      SIGNET_TLS_CERT_FILE: join(verifierCerts, 'tls.crt'),
      SIGNET_TLS_KEY_FILE: join(verifierCerts, 'tls.key'),
    });
    try {
      expect(verifier.logs()).toMatch(/"tls":true/);
      const url = await proxy(
        join(certs, 'ca.crt'),
        'signet',
        {
          ...oauthEnv,
          SIGNET_API_KEY: '',
          SIGNET_PROXY_AUTH_CHECK: `127.0.0.1:${verifier.port}`,
          SIGNET_PROXY_AUTH_CHECK_TLS_NAME: 'signet-auth',
        },
        proxyPort,
      );
      const token = await issuer.token({ scope: 'signet:read' });
      const post = () =>
        rawRequest(url, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, host: '127.0.0.1' },
          body: rpc('tools/call', { name: 'doctrine_info', arguments: {} }, 1),
        });
      // Until the verifier has the issuer's keys the proxy answers 503; then the token works.
      let r = await post();
      for (let i = 0; r.status === 503 && i < 100; i++) {
        await new Promise((res) => setTimeout(res, 100));
        r = await post();
      }
      expect(r.status, r.body).toBe(200);
      expect(verifyOutput(r.json().result).signature_valid).toBe(true);
      // The verifier speaks nothing in the clear.
      await expect(rawRequest(`http://127.0.0.1:${verifier.port}/healthz`, { method: 'GET' })).rejects.toThrow();
      expect(verifier.logs()).not.toContain(token);
    } finally {
      await verifier.stop();
      await issuer.close();
    }
  });

  it("the image's HEALTHCHECK probes the HTTPS listener (and reports a plain one that is not there as down)", () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const probe = JSON.parse(/^\s*CMD (\["node", "-e", .*\])$/m.exec(dockerfile)![1]!) as string[];
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, probe.slice(1), {
        env: { PATH: process.env['PATH'] ?? '', SIGNET_TRANSPORT: 'http', SIGNET_HTTP_PORT: String(server.port), ...env },
        timeout: 10_000,
      }).status;
    expect(run({ SIGNET_TLS_CERT_FILE: join(certs, 'tls.crt') })).toBe(0);
    expect(run({})).toBe(1);
  });

  it("refuses to start on a key that is not the certificate's, naming the variables and never the key", () => {
    const r = spawnSync(process.execPath, [CLI, 'serve', '--http'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        SIGNET_DATA_DIR: join(dir, 'data-2'),
        SIGNET_HTTP_PORT: '0',
        SIGNET_TLS_CERT_FILE: join(certs, 'next.crt'),
        SIGNET_TLS_KEY_FILE: join(certs, 'ca.key'),
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/SIGNET_TLS_CERT_FILE and SIGNET_TLS_KEY_FILE do not make a usable pair/);
    expect(r.stderr).not.toContain(readFileSync(join(certs, 'ca.key'), 'utf8').split('\n')[1]);
  });
});
