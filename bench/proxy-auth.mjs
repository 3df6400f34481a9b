// npm run bench:proxy: what authentication costs at the reference proxy. The same nginx
// configuration (proxy/render.sh) in front of a bare Hono echo, three ways:
//   static   SIGNET_API_KEY, exact header match in nginx
//   store    the hashed key store checked by njs (what Signet ships)
//   auth_request  the alternative: a verifier service on the private network, per request
//   oauth    SIGNET_AUTH_MODE=oauth as shipped: auth_request to `signet token-verifier`, an
//            ES256 JWT access token whose issuer keys are cached (the issuer runs in this process)
// Sequential keep-alive requests timed with performance.now() (µs resolution), interleaved.
// Then the proxy's overhead under load: autocannon against Signet directly and through the
// proxy (static key, key store, OAuth, and the static key over a verified HTTPS hop to Signet,
// as Kubernetes ships it), same run, 10 and 50 connections.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { newApiKey } from '../dist/api-keys/format.js';
import { KeyStore } from '../dist/api-keys/store.js';
import { cpuUs, fmt, load, machine, median, percentile, ROOT, startChild, table, writeSection } from './lib.mjs';

const quick = process.env.BENCH_QUICK === '1';
const N = quick ? 1000 : 4000;
const REPS = quick ? 1 : 3;
const dir = mkdtempSync(join(tmpdir(), 'signet-bench-proxy-'));
const nginxBin =
  ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => {
    try {
      readFileSync(p);
      return true;
    } catch {
      return false;
    }
  }) ?? 'nginx';
const njs = ['/usr/lib/nginx/modules/ngx_http_js_module.so'].find((p) => {
  try {
    readFileSync(p);
    return true;
  } catch {
    return false;
  }
});

// A store of 100 keys, as a team might have.
const storePath = join(dir, 'keys', 'keys.json');
const store = new KeyStore(storePath);
let storeKey = '';
for (let i = 0; i < Number(process.env.BENCH_STORE_KEYS ?? 100); i++) {
  const { key } = await store.create(`user-${i}`, null);
  if (i === 0) storeKey = key;
}
const staticKey = newApiKey();

const upstream = await startChild(process.execPath, [`${ROOT}bench/baseline-server.mjs`], {}, /listening on port (\d+)/);
const verifier = await startChild(
  process.execPath,
  [`${ROOT}bench/auth-verifier.mjs`],
  { SIGNET_KEY_STORE: storePath },
  /listening on port (\d+)/,
);

// BENCH_PROXY_IMAGE=nginx:1.30-trixie: run each nginx from that image instead (host network,
// the rendered files mounted at the same paths), to measure the nginx and njs the image ships.
const image = process.env.BENCH_PROXY_IMAGE;

// The proxy's credential towards Signet, as compose generates it; the direct baseline sends it too.
const proxySecret = randomBytes(32).toString('hex');
const proxySecretFile = join(dir, 'proxy-secret');
writeFileSync(proxySecretFile, proxySecret, { mode: 0o440 });

function render(name, port, env, upstreamPort = upstream.port) {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  const r = spawn('sh', [`${ROOT}proxy/render.sh`], {
    env: {
      PATH: process.env.PATH,
      SIGNET_UPSTREAM: `127.0.0.1:${upstreamPort}`,
      SIGNET_PROXY_LISTEN: `127.0.0.1:${port}`,
      SIGNET_PROXY_CONF_DIR: join(d, 'conf'),
      SIGNET_PROXY_RUNTIME_DIR: join(d, 'run'),
      SIGNET_PROXY_ACCESS_LOG: join(d, 'access.log'),
      SIGNET_PROXY_ERROR_LOG: join(d, 'error.log'),
      SIGNET_TLS_DIR: join(d, 'tls'),
      SIGNET_PROXY_WORKER_USER: 'root',
      SIGNET_PROXY_SECRET_FILE: proxySecretFile,
      ...(njs ? { SIGNET_PROXY_NJS_MODULE: njs } : {}),
      // render.sh probes the local njs; the image's (0.8+) has the shared dict.
      ...(image ? { SIGNET_PROXY_NJS_SHARED_DICT: 'on' } : {}),
      ...env,
    },
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) =>
    r.on('exit', (code) => (code === 0 ? resolve(join(d, 'conf')) : reject(new Error(`render ${code}`)))),
  );
}

const nginxLabel = image ? `${image} (docker, host network)` : nginxBin;
let containers = 0;
async function startNginx(conf, port) {
  const args = ['-c', join(conf, 'nginx.conf'), '-g', 'daemon off;'];
  const name = `signet-bench-nginx-${process.pid}-${containers++}`;
  const child = image
    ? spawn(
        'docker',
        [
          'run',
          '--rm',
          '--name',
          name,
          '--network',
          'host',
          '-v',
          `${dir}:${dir}`,
          '-v',
          `${ROOT}proxy/njs:${ROOT}proxy/njs:ro`,
          image,
          'nginx',
          ...args,
        ],
        { stdio: 'inherit' },
      )
    : spawn(nginxBin, args, { stdio: 'inherit' });
  if (image)
    child.kill = () => {
      spawn('docker', ['rm', '-f', name], { stdio: 'ignore' });
      return true;
    };
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

/** CPU µs used so far by a process's children (nginx workers), 0 when they cannot be read (docker). */
function childrenCpuUs(pid) {
  let sum = 0;
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid)) sum += cpuUs(Number(p));
    } catch {
      /* gone */
    }
  }
  return sum;
}

const ports = { static: 18180, store: 18181, auth_request: 18182, oauth: 18185 };

// OAuth: an issuer on loopback (RFC 8414 metadata and JWKS), the real token verifier, one token.
const resource = `http://127.0.0.1:${ports.oauth}/mcp`;
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
const issuerServer = createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/.well-known/oauth-authorization-server') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
  else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
  else res.writeHead(404).end('{}');
});
await new Promise((r) => issuerServer.listen(0, '127.0.0.1', () => r(undefined)));
const issuer = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (issuerServer.address()).port}`;
const accessToken = await new SignJWT({ scope: 'signet:read signet:evaluate', client_id: 'bench' })
  .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
  .setIssuer(issuer)
  .setAudience(resource)
  .setSubject('bench-user')
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(privateKey);
// Tokens used once each: every request pays the ES256 signature check (no decision cached).
const freshTokens = [];
for (let i = 0; i < (N + 300) * REPS; i++) {
  freshTokens.push(
    await new SignJWT({ scope: 'signet:read', client_id: 'bench' })
      .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(resource)
      .setSubject(`bench-user-${i}`)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey),
  );
}
const oauthEnv = { SIGNET_AUTH_MODE: 'oauth', SIGNET_OAUTH_ISSUER: issuer, SIGNET_OAUTH_RESOURCE: resource };
const tokenVerifier = await startChild(
  process.execPath,
  [`${ROOT}dist/bundle/signet.js`, 'token-verifier'],
  { ...oauthEnv, SIGNET_OAUTH_VERIFIER_PORT: '0' },
  /token verifier listening/,
);
const confOAuth = await render('oauth', ports.oauth, { ...oauthEnv, SIGNET_OAUTH_VERIFIER: `127.0.0.1:${tokenVerifier.port}` });
const confStatic = await render('static', ports.static, { SIGNET_API_KEY: staticKey });
const confStore = await render('store', ports.store, { SIGNET_KEY_STORE: storePath });
// auth_request: the static rendering with its key check replaced by a subrequest to the verifier.
const confAuth = await render('auth_request', ports.auth_request, { SIGNET_API_KEY: staticKey });
{
  const f = join(confAuth, 'signet.conf');
  let conf = readFileSync(f, 'utf8');
  conf = conf.replace(/ {8}if \(\$http_authorization != "Bearer [^"]+"\) \{\n[^\n]*\n {8}\}\n/, '        auth_request /_signet_verify;\n');
  conf = conf.replace(
    '    location = /healthz {',
    [
      '    location = /_signet_verify {',
      '        internal;',
      `        proxy_pass http://127.0.0.1:${verifier.port}/verify;`,
      '        proxy_pass_request_body off;',
      '        proxy_set_header Content-Length "";',
      '        proxy_http_version 1.1;',
      '        proxy_set_header Connection "";',
      '    }',
      '',
      '    location = /healthz {',
    ].join('\n'),
  );
  if (!conf.includes('auth_request /_signet_verify;')) throw new Error('auth_request rewrite failed');
  writeFileSync(f, conf);
}
const nginx = [
  await startNginx(confStatic, ports.static),
  await startNginx(confStore, ports.store),
  await startNginx(confAuth, ports.auth_request),
  await startNginx(confOAuth, ports.oauth),
];
for (const [port, key] of [
  [ports.static, staticKey],
  [ports.store, storeKey],
  [ports.oauth, accessToken],
]) {
  const r = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  if (r.status !== 200) throw new Error(`proxy on ${port} answered ${r.status}: ${await r.text()}`);
}

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
function timed(port, key, agent) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`status ${res.statusCode} on ${port}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** @type {[string, number, string | (() => string)][]} */
const configs = [
  ['static key (nginx exact match)', ports.static, staticKey],
  ['key store, njs (shipped)', ports.store, storeKey],
  ['key store, auth_request to a verifier service', ports.auth_request, storeKey],
  ['OAuth access token, signet token-verifier (shipped)', ports.oauth, accessToken],
  ['OAuth, a new token every request (signature checked each time)', ports.oauth, () => freshTokens.pop()],
];
const samples = configs.map(() => []);
for (let rep = 0; rep < REPS; rep++) {
  for (let c = 0; c < configs.length; c++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const key = configs[c][2];
    const next = typeof key === 'function' ? key : () => key;
    for (let i = 0; i < 300; i++) await timed(configs[c][1], next(), agent); // warm-up
    for (let i = 0; i < N; i++) samples[c].push(await timed(configs[c][1], next(), agent));
    agent.destroy();
  }
}
for (const n of nginx) n.kill('SIGQUIT');
await upstream.stop();
await verifier.stop();

const stats = samples.map((s) => {
  const sorted = [...s].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50) * 1000, p99: percentile(sorted, 99) * 1000 };
});
const rows = configs.map(([label], i) => [
  label,
  fmt(stats[i].p50),
  fmt(stats[i].p99),
  `${stats[i].p50 - stats[0].p50 >= 0 ? '+' : ''}${fmt(stats[i].p50 - stats[0].p50)}`,
]);

// ---- Under load: Signet directly vs through the proxy -------------------------------------------
/** The built server, every rate limit off (keys and OAuth subjects have budgets of their own too). */
const startSignet = (env = {}) =>
  startChild(
    process.execPath,
    [`${ROOT}dist/bundle/signet.js`, 'serve', '--http'],
    {
      SIGNET_HTTP_PORT: '0',
      SIGNET_DATA_DIR: join(dir, 'signet'),
      SIGNET_PROXY_SECRET_FILE: proxySecretFile,
      SIGNET_RATE_LIMIT_PER_MINUTE: '0',
      SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0',
      SIGNET_RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
      SIGNET_RATE_LIMIT_IP_GUARD_PER_MINUTE: '0',
      ...env,
    },
    /"port":(\d+)/,
  );
const signet = await startSignet();
// The same server over HTTPS (the Kubernetes hop), with the CA and certificate the dev recipe of
// docs/operations.md makes (the one the tests run too).
const tlsDir = join(dir, 'tls-hop');
mkdirSync(tlsDir, { recursive: true });
const operations = readFileSync(`${ROOT}docs/operations.md`, 'utf8');
const recipeBlock = operations.slice(operations.indexOf('<!-- recipe:dev-secrets -->'));
const devSecrets = recipeBlock.slice(
  recipeBlock.indexOf('\n', recipeBlock.indexOf('```')) + 1,
  recipeBlock.indexOf('```\n<!-- /recipe -->'),
);
execFileSync('bash', ['-e', '-o', 'pipefail', '-c', devSecrets], { cwd: tlsDir, stdio: 'pipe' });
const certs = join(tlsDir, 'deploy/kubernetes/overlays/dev/secrets');
const signetTls = await startSignet({ SIGNET_TLS_CERT_FILE: join(certs, 'tls.crt'), SIGNET_TLS_KEY_FILE: join(certs, 'tls.key') });
const loadPorts = { static: 18183, store: 18184, oauth: 18186, tls: 18187 };
const loadNginx = [
  await startNginx(await render('load-static', loadPorts.static, { SIGNET_API_KEY: staticKey }, signet.port), loadPorts.static),
  await startNginx(await render('load-store', loadPorts.store, { SIGNET_KEY_STORE: storePath }, signet.port), loadPorts.store),
  await startNginx(
    await render('load-oauth', loadPorts.oauth, { ...oauthEnv, SIGNET_OAUTH_VERIFIER: `127.0.0.1:${tokenVerifier.port}` }, signet.port),
    loadPorts.oauth,
  ),
  await startNginx(
    await render(
      'load-static-tls',
      loadPorts.tls,
      { SIGNET_API_KEY: staticKey, SIGNET_PROXY_UPSTREAM_CA_FILE: join(certs, 'ca.crt'), SIGNET_PROXY_UPSTREAM_TLS_NAME: 'signet' },
      signetTls.port,
    ),
    loadPorts.tls,
  ),
];
const get = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' } },
});
/** @type {[string, string, Record<string, string>][]} */
const paths = [
  ['Signet directly', `http://127.0.0.1:${signet.port}/mcp`, { 'x-signet-proxy-auth': proxySecret }],
  ['through the proxy, static key', `http://127.0.0.1:${loadPorts.static}/mcp`, { authorization: `Bearer ${staticKey}` }],
  ['through the proxy, key store (njs)', `http://127.0.0.1:${loadPorts.store}/mcp`, { authorization: `Bearer ${storeKey}` }],
  [
    'through the proxy, OAuth token (token verifier)',
    `http://127.0.0.1:${loadPorts.oauth}/mcp`,
    { authorization: `Bearer ${accessToken}` },
  ],
  [
    'through the proxy, static key, HTTPS to Signet (verified; Kubernetes)',
    `http://127.0.0.1:${loadPorts.tls}/mcp`,
    { authorization: `Bearer ${staticKey}` },
  ],
];
/** The server a path reaches (for its CPU). */
const serverOf = (label) => (label.includes('HTTPS to Signet') ? signetTls : signet);
const loadRows = [];
const overhead = {};
for (const c of [10, 50]) {
  const runs = paths.map(() => []);
  for (let rep = 0; rep < REPS; rep++) {
    for (let i = 0; i < paths.length; i++) {
      const nginxPid = i === 0 ? null : loadNginx[i - 1].pid;
      // The proxy side's CPU: nginx's workers, plus the token verifier for the OAuth path.
      const verifierPid = paths[i][0].includes('OAuth') ? tokenVerifier.child.pid : null;
      const proxyCpu = () => (nginxPid ? childrenCpuUs(nginxPid) : 0) + (verifierPid ? cpuUs(verifierPid) : 0);
      const n0 = proxyCpu();
      const server = serverOf(paths[i][0]);
      const s0 = cpuUs(server.child.pid);
      const r = await load({ url: paths[i][1], headers: paths[i][2], body: get, connections: c, duration: quick ? 2 : 4 });
      const total = Math.max(1, r.total);
      runs[i].push({
        ...r,
        nginxCpu: nginxPid ? (proxyCpu() - n0) / total : 0,
        signetCpu: (cpuUs(server.child.pid) - s0) / total,
      });
    }
  }
  const rps = runs.map((rs) => median(rs.map((r) => r.rps)));
  paths.forEach(([label], i) => {
    const o = i === 0 ? null : 1 - rps[i] / rps[0];
    if (o !== null) overhead[`${i}@${c}`] = o;
    loadRows.push([
      label,
      String(c),
      fmt(rps[i]),
      fmt(median(runs[i].map((r) => r.p50)), 1),
      fmt(median(runs[i].map((r) => r.p99)), 1),
      o === null ? '' : `${fmt(100 * o)} %`,
      fmt(median(runs[i].map((r) => r.signetCpu)), 0),
      i === 0 || image ? '' : fmt(median(runs[i].map((r) => r.nginxCpu)), 0),
      String(runs[i].reduce((a, r) => a + r.errors, 0)),
    ]);
  });
}
for (const n of loadNginx) n.kill('SIGQUIT');
await signet.stop();
await signetTls.stop();
await tokenVerifier.stop();
issuerServer.close();

const out = [
  '## Reference proxy: cost of authentication',
  '',
  `${machine()}; nginx (${nginxLabel}, one worker per core) in front of a bare Hono echo; ${N} sequential keep-alive requests ` +
    `per configuration × ${REPS} interleaved runs; store of ${Number(process.env.BENCH_STORE_KEYS ?? 100)} keys. Goal: key store ` +
    `p50 ≤ 150 µs over the static key; an OAuth token (cached issuer keys) likewise, and no more than the key store.`,
  '',
  table(['configuration', 'p50 µs', 'p99 µs', 'p50 vs static µs'], rows),
  '',
  '### Proxy overhead under load',
  '',
  `Signet (cached \`tools/call doctrine_get\`, rate limits off, logs at info) directly and through the proxy, autocannon in ` +
    `the benchmark process, ${quick ? 2 : 4} s per run, median of ${REPS} interleaved runs; the server, nginx (2 workers) and ` +
    `autocannon share the ${cpus().length} cores. Goal: static key ≤ 20 % at 10 connections.`,
  '',
  table(
    [
      'path',
      'connections',
      'req/s',
      'p50 ms',
      'p99 ms',
      'overhead vs direct',
      'Signet CPU µs/req',
      'proxy CPU µs/req (nginx, + token verifier for OAuth)',
      'errors',
    ],
    loadRows,
  ),
].join('\n');
console.log(out);
if (!quick) writeSection(image ? 'proxy-auth-image' : 'proxy-auth', out);
process.exit(0);
