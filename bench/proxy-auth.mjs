// npm run bench:proxy: what authentication costs at the reference proxy. The same nginx
// configuration (proxy/render.sh) in front of a bare Hono echo:
//   static   SIGNET_API_KEY, compared by nginx itself (no auth check)
//   key      an API key of a 100-key store, checked by `signet auth-check` (auth_request)
//   token    an ES256 JWT access token, checked by the same auth check (decided before: cached)
//   new token  a new token every request (its signature checked each time)
// Keep-alive on every hop: client to nginx, nginx to the echo, nginx to the auth check.
// Sequential requests timed with performance.now() (µs resolution), interleaved in blocks of
// BLOCK requests (each configuration on its own kept-alive connection, a different order each
// round) so that a burst of other work on the machine hits every configuration alike; the load
// average is recorded per block and reported per configuration. Then the
// proxy's overhead under load: autocannon against Signet directly and through the proxy
// (static key, key, token, and the static key over a verified HTTPS hop to Signet, as
// Kubernetes ships it), same run, 10 and 50 connections.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { newApiKey } from '../dist/api-keys/format.js';
import { KeyStore } from '../dist/api-keys/store.js';
import {
  benchIssuer,
  childrenCpuUs,
  cpuUs,
  fmt,
  load,
  machine,
  median,
  NGINX_BIN,
  percentile,
  ROOT,
  startChild,
  table,
  writeSection,
} from './lib.mjs';

const quick = process.env.BENCH_QUICK === '1';
const startLoad = loadavg()[0];
const N = quick ? 1000 : 4000;
const REPS = quick ? 1 : 3;
/** Sequential requests per configuration in a row, before the next configuration's turn. */
const BLOCK = 100;
const dir = mkdtempSync(join(tmpdir(), 'signet-bench-proxy-'));
const nginxBin = NGINX_BIN;

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

// BENCH_PROXY_IMAGE=nginx:1.30-trixie: run each nginx from that image instead (host network,
// the rendered files mounted at the same paths), to measure the nginx the image ships.
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
    ? spawn('docker', ['run', '--rm', '--name', name, '--network', 'host', '-v', `${dir}:${dir}`, image, 'nginx', ...args], {
        stdio: 'inherit',
      })
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

const ports = { static: 18180, check: 18181 };

// OAuth: an issuer on loopback (RFC 8414 metadata and JWKS), the real token verifier, one token.
const resource = `http://127.0.0.1:${ports.check}/mcp`;
const bench = await benchIssuer(resource);
const issuer = bench.issuer;
const accessToken = await bench.token('bench-user', 'signet:read signet:evaluate');
// Tokens used once each: every request pays the ES256 signature check (no decision cached).
const freshTokens = [];
for (let i = 0; i < N * REPS + 300; i++) freshTokens.push(await bench.token(`bench-user-${i}`, 'signet:read'));
const oauthEnv = { SIGNET_AUTH_MODE: 'keys+oauth', SIGNET_OAUTH_ISSUER: issuer, SIGNET_OAUTH_RESOURCE: resource };
// The one authenticator, as compose runs it: the store and the issuer, the proxy secret, loopback.
const authCheck = await startChild(
  process.execPath,
  [`${ROOT}dist/bundle/signet.js`, 'auth-check'],
  {
    ...oauthEnv,
    SIGNET_KEY_STORE: storePath,
    SIGNET_PROXY_SECRET_FILE: proxySecretFile,
    SIGNET_AUTH_CHECK_PORT: '0',
    // The benchmark refuses nothing; no limit to meet.
    SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '1000000',
  },
  /"msg":"auth check listening"/,
);
const checkEnv = {
  ...oauthEnv,
  SIGNET_PROXY_AUTH_CHECK: `127.0.0.1:${authCheck.port}`,
  SIGNET_PROXY_REQUESTS_PER_MINUTE: '10000000',
  SIGNET_PROXY_REQUESTS_BURST: '1000000',
};
const confCheck = await render('check', ports.check, checkEnv);
const confStatic = await render('static', ports.static, {
  SIGNET_API_KEY: staticKey,
  SIGNET_PROXY_REQUESTS_PER_MINUTE: '10000000',
  SIGNET_PROXY_REQUESTS_BURST: '1000000',
});
const nginx = [await startNginx(confStatic, ports.static), await startNginx(confCheck, ports.check)];
for (const [port, key] of [
  [ports.static, staticKey],
  [ports.check, storeKey],
  [ports.check, accessToken],
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
  ['static key (nginx compares it)', ports.static, staticKey],
  ['API key, signet auth-check (store of 100 keys in memory)', ports.check, storeKey],
  ['OAuth access token, signet auth-check (decided before)', ports.check, accessToken],
  ['OAuth, a new token every request (signature checked each time)', ports.check, () => freshTokens.pop()],
];
const samples = configs.map(() => []);
/** The 1-minute load average at the start of each of a configuration's blocks. */
const loads = configs.map(() => []);
const agents = configs.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
const nexts = configs.map(([, , key]) => (typeof key === 'function' ? key : () => key));
for (let c = 0; c < configs.length; c++) for (let i = 0; i < 300; i++) await timed(configs[c][1], nexts[c](), agents[c]); // warm-up
const blocks = Math.ceil((N * REPS) / BLOCK);
for (let b = 0; b < blocks; b++) {
  for (let k = 0; k < configs.length; k++) {
    const c = (b + k) % configs.length;
    loads[c].push(loadavg()[0]);
    for (let i = 0; i < BLOCK; i++) samples[c].push(await timed(configs[c][1], nexts[c](), agents[c]));
  }
}
for (const agent of agents) agent.destroy();
for (const n of nginx) n.kill('SIGQUIT');
await upstream.stop();

const stats = samples.map((s) => {
  const sorted = [...s].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50) * 1000, p99: percentile(sorted, 99) * 1000 };
});
const loadRange = (xs) => `${fmt(Math.min(...xs), 1)}–${fmt(Math.max(...xs), 1)} (median ${fmt(median(xs), 1)})`;
const rows = configs.map(([label], i) => [
  label,
  fmt(stats[i].p50),
  fmt(stats[i].p99),
  `${stats[i].p50 - stats[0].p50 >= 0 ? '+' : ''}${fmt(stats[i].p50 - stats[0].p50)}`,
  loadRange(loads[i]),
]);
const sequentialHeaders = ['configuration', 'p50 µs', 'p99 µs', 'p50 vs static µs', 'load average over its blocks'];

console.log(table(sequentialHeaders, rows));

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
const loadPorts = { static: 18183, check: 18184, tls: 18187 };
const noLimits = { SIGNET_PROXY_REQUESTS_PER_MINUTE: '10000000', SIGNET_PROXY_REQUESTS_BURST: '1000000' };
const loadNginx = [
  await startNginx(
    await render('load-static', loadPorts.static, { SIGNET_API_KEY: staticKey, ...noLimits }, signet.port),
    loadPorts.static,
  ),
  await startNginx(await render('load-check', loadPorts.check, checkEnv, signet.port), loadPorts.check),
  await startNginx(
    await render(
      'load-static-tls',
      loadPorts.tls,
      {
        SIGNET_API_KEY: staticKey,
        SIGNET_PROXY_UPSTREAM_CA_FILE: join(certs, 'ca.crt'),
        SIGNET_PROXY_UPSTREAM_TLS_NAME: 'signet',
        ...noLimits,
      },
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
  ['through the proxy, API key (auth check)', `http://127.0.0.1:${loadPorts.check}/mcp`, { authorization: `Bearer ${storeKey}` }],
  ['through the proxy, OAuth token (auth check)', `http://127.0.0.1:${loadPorts.check}/mcp`, { authorization: `Bearer ${accessToken}` }],
  [
    'through the proxy, static key, HTTPS to Signet (verified; Kubernetes)',
    `http://127.0.0.1:${loadPorts.tls}/mcp`,
    { authorization: `Bearer ${staticKey}` },
  ],
];
/** The nginx a path goes through, by its port (the key and the token share one). */
const nginxAt = { [loadPorts.static]: loadNginx[0], [loadPorts.check]: loadNginx[1], [loadPorts.tls]: loadNginx[2] };
/** The server a path reaches (for its CPU). */
const serverOf = (label) => (label.includes('HTTPS to Signet') ? signetTls : signet);
const loadRows = [];
const overhead = {};
for (const c of [10, 50]) {
  const runs = paths.map(() => []);
  for (let rep = 0; rep < REPS; rep++) {
    for (let i = 0; i < paths.length; i++) {
      const nginxPid = i === 0 ? null : nginxAt[new URL(paths[i][1]).port].pid;
      // The proxy side's CPU: nginx's workers, plus the auth check where it is asked.
      const verifierPid = paths[i][0].includes('auth check') ? authCheck.child.pid : null;
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
await authCheck.stop();
bench.close();

const out = [
  '## Reference proxy: cost of authentication',
  '',
  `${machine()}, load average ${startLoad.toFixed(1)} at the start of the run; nginx (${nginxLabel}, one worker per core) in front of a bare Hono echo; ${N * REPS} sequential keep-alive requests ` +
    `per configuration, in blocks of ${BLOCK} interleaved with the other configurations' (a different order each round), keep-alive on every hop (client, echo, auth check); store of ` +
    `${Number(process.env.BENCH_STORE_KEYS ?? 100)} keys. Goal (issue 28): an API key and a token each ≤ +100 µs p50 over ` +
    `the static key, and proxy CPU per request (nginx + auth check) under the earlier OAuth path's (its token verifier, ` +
    `measured beside this one by \`npm run bench:proxy-earlier\`: RESULTS.md, "the earlier edge, same session").`,
  '',
  table(sequentialHeaders, rows),
  '',
  '### Proxy overhead under load',
  '',
  `Signet (cached \`tools/call doctrine_get\`, rate limits off, logs at info) directly and through the proxy, autocannon in ` +
    `the benchmark process, ${quick ? 2 : 4} s per run, median of ${REPS} interleaved runs; the server, nginx (2 workers) and ` +
    `autocannon share the ${cpus().length} cores. Goal: static key ≤ 20 % at 10 connections. Errors are answers other than ` +
    `2xx over all runs: with 50 connections, all from one principal, some requests find that principal's 8 (or the ` +
    `server's 32) requests already in flight and get 429 (503) by design (docs/http.md, bodies in flight and turns).`,
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
      'proxy CPU µs/req (nginx, + auth check where asked)',
      'errors',
    ],
    loadRows,
  ),
].join('\n');
console.log(out);
if (!quick) writeSection(image ? 'proxy-auth-image' : 'proxy-auth', out);
process.exit(0);
