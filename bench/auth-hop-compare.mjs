// node bench/auth-hop-compare.mjs EARLIER_DIST [BASE_DIST]: the auth_request hop alone, the
// earlier OAuth path's `signet token-verifier` (EARLIER_DIST: a build of the tree before issue
// 28, 03b78b8^, as bench/proxy-earlier.sh makes it) beside this tree's `signet auth-check`
// (and another build's, BASE_DIST, when given). One nginx (a minimal configuration: the same
// auth_request location for every check, the same headers asked and passed on) in front of a
// bare echo, so that what differs is the check and what nginx does with its answer, not the
// shipped configurations or Signet. autocannon, BENCH_CONNECTIONS (10,50) connections, 3 s per
// case after an uncounted second each, BENCH_ROUNDS (5) rounds in alternating order; CPU µs
// per request of nginx's workers and of the check (/proc), medians. Prints a table; writes nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { KeyStore } from '../dist/api-keys/store.js';
import { benchIssuer, childrenCpuUs, cpuUs, machine, median, NGINX_BIN, ROOT, startChild, table } from './lib.mjs';

const [earlierDist, baseDist] = process.argv.slice(2);
if (!earlierDist) {
  console.error('usage: node bench/auth-hop-compare.mjs EARLIER_DIST [BASE_DIST]');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map(Number);
const nginxBin = NGINX_BIN;

const dir = mkdtempSync(join(tmpdir(), 'signet-bench-hop-'));
const store = new KeyStore(join(dir, 'keys.json'));
let key = '';
for (let i = 0; i < 100; i++) {
  const created = await store.create(`user-${i}`, null);
  if (i === 0) key = created.key;
}
const secret = 'c'.repeat(64);
writeFileSync(join(dir, 'secret'), secret, { mode: 0o400 });

const echo = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' }).end('{}');
});
echo.keepAliveTimeout = 65_000;
await new Promise((r) => echo.listen(0, '127.0.0.1', () => r(undefined)));
const echoPort = /** @type {import('node:net').AddressInfo} */ (echo.address()).port;

// A port the system just handed out and took back, for nginx (which cannot report one).
const listenPort = await new Promise((r) => {
  const probe = createServer();
  probe.listen(0, '127.0.0.1', () => {
    const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
    probe.close(() => r(port));
  });
});
const resource = `http://127.0.0.1:${listenPort}/mcp`;
const issuer = await benchIssuer(resource);
const token = await issuer.token('bench-user', 'signet:read signet:evaluate');
const oauth = { SIGNET_OAUTH_ISSUER: issuer.issuer, SIGNET_OAUTH_RESOURCE: resource, SIGNET_LOG_LEVEL: 'warn' };

const authCheck = (dist) =>
  startChild(
    process.execPath,
    [join(resolve(dist), 'bundle/signet.js'), 'auth-check'],
    {
      ...oauth,
      SIGNET_LOG_LEVEL: 'info',
      SIGNET_AUTH_MODE: 'keys+oauth',
      SIGNET_KEY_STORE: join(dir, 'keys.json'),
      SIGNET_PROXY_SECRET_FILE: join(dir, 'secret'),
      SIGNET_AUTH_CHECK_PORT: '0',
      SIGNET_AUTH_CHECK_HOST: '127.0.0.1',
      SIGNET_PROXY_AUTH_FAILURES_PER_MINUTE: '1000000',
    },
    /"msg":"auth check listening"/,
  );
const checks = [
  {
    name: 'earlier',
    child: await startChild(
      process.execPath,
      [join(resolve(earlierDist), 'bundle/signet.js'), 'token-verifier'],
      {
        ...oauth,
        SIGNET_LOG_LEVEL: 'info',
        SIGNET_AUTH_MODE: 'oauth',
        SIGNET_OAUTH_VERIFIER_PORT: '0',
        SIGNET_OAUTH_VERIFIER_HOST: '127.0.0.1',
      },
      /token verifier listening/,
    ),
  },
  { name: 'this', child: await authCheck(join(ROOT, 'dist')) },
  ...(baseDist ? [{ name: 'base', child: await authCheck(baseDist) }] : []),
];

// Every check is asked the same (credential, client address, proxy secret) and every answer's
// identity headers are passed on; the credential never is.
const upstreams = checks.map((c) => `  upstream ${c.name}_check { server 127.0.0.1:${c.child.port}; keepalive 32; }`).join('\n');
const locations = checks
  .map(
    (c) => `
    location = /${c.name} {
      auth_request /.${c.name};
      auth_request_set $p $upstream_http_x_signet_principal;
      auth_request_set $s $upstream_http_x_signet_scopes;
      auth_request_set $k $upstream_http_x_signet_key_id;
      auth_request_set $i $upstream_http_x_signet_principal_id;
      proxy_set_header X-Signet-Principal $p;
      proxy_set_header X-Signet-Scopes $s;
      proxy_set_header X-Signet-Key-Id $k;
      proxy_set_header X-Signet-Principal-Id $i;
      proxy_set_header Authorization "";
      proxy_pass http://echo/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    location = /.${c.name} {
      internal;
      proxy_pass http://${c.name}_check/check;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_pass_request_headers off;
      proxy_set_header Authorization $http_authorization;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-Signet-Proxy-Auth "${secret}";
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }`,
  )
  .join('\n');
writeFileSync(
  join(dir, 'nginx.conf'),
  `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  upstream echo { server 127.0.0.1:${echoPort}; keepalive 32; }
${upstreams}
  server {
    listen 127.0.0.1:${listenPort};
    location = /static { proxy_pass http://echo/; proxy_http_version 1.1; proxy_set_header Connection ""; }
${locations}
  }
}
`,
);
const nginx = spawn(nginxBin, ['-c', join(dir, 'nginx.conf')], { stdio: 'inherit' });
for (let i = 0; i < 100; i++) {
  if (
    await fetch(`http://127.0.0.1:${listenPort}/static`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 50));
}
nginx.once('exit', (code) => {
  if (code !== null && code !== 0) {
    console.error(`nginx exited ${code}`);
    process.exit(1);
  }
});

/** A case: its label, its nginx location, the check behind it (none: nginx alone) and the credential sent. */
const kase = (
  /** @type {string} */ label,
  /** @type {string} */ path,
  /** @type {{ name: string, child: any } | null} */ check,
  /** @type {string} */ credential,
) => ({
  label,
  path,
  check,
  credential,
});
const cases = [
  kase('static key (nginx alone, no check)', 'static', null, key),
  kase('earlier OAuth path: token verifier, a token', 'earlier', checks[0], token),
  kase('auth check (this tree), a token', 'this', checks[1], token),
  kase('auth check (this tree), an API key', 'this', checks[1], key),
];
if (baseDist)
  cases.push(
    kase('auth check (BASE_DIST), a token', 'base', checks[2], token),
    kase('auth check (BASE_DIST), an API key', 'base', checks[2], key),
  );
// Every path once, uncounted, so that no round pays for a check's JIT warm-up.
for (const { path, credential } of cases)
  await autocannon({
    url: `http://127.0.0.1:${listenPort}/${path}`,
    connections: 10,
    duration: 1,
    headers: { authorization: `Bearer ${credential}` },
  });
const startLoad = loadavg()[0];
const rows = [];
for (const conns of connections) {
  const got = new Map(cases.map((c) => [c.label, /** @type {{ nginxUs: number, checkUs: number, total: number }[]} */ ([])]));
  for (let round = 0; round < rounds; round++) {
    for (const { label, path, check, credential } of round % 2 ? [...cases].reverse() : cases) {
      const nginxBefore = childrenCpuUs(nginx.pid);
      const checkBefore = check ? cpuUs(check.child.child.pid) : 0;
      const r = await autocannon({
        url: `http://127.0.0.1:${listenPort}/${path}`,
        connections: conns,
        duration: 3,
        headers: { authorization: `Bearer ${credential}` },
      });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${label}: ${r.non2xx} answers other than 2xx, ${r.errors} errors`);
      const n = r.requests.total;
      const nginxUs = (childrenCpuUs(nginx.pid) - nginxBefore) / n;
      const checkUs = check ? (cpuUs(check.child.child.pid) - checkBefore) / n : 0;
      got.get(label).push({ nginxUs, checkUs, total: nginxUs + checkUs });
    }
  }
  const earlierTotal = median(got.get(cases[1].label).map((x) => x.total));
  for (const { label } of cases) {
    const xs = got.get(label);
    const total = median(xs.map((x) => x.total));
    rows.push([
      label,
      String(conns),
      median(xs.map((x) => x.nginxUs)).toFixed(1),
      median(xs.map((x) => x.checkUs)).toFixed(1),
      total.toFixed(1),
      label.startsWith('static') ? '' : `${((total / earlierTotal) * 100).toFixed(0)} %`,
    ]);
  }
}
console.log(
  `${machine()}, load average ${startLoad.toFixed(1)} at the start; nginx ${nginxBin}, one worker; ${rounds} rounds × 3 s per case, alternating order; medians.\n`,
);
console.log(table(['path', 'connections', 'nginx CPU µs/req', 'check CPU µs/req', 'proxy CPU µs/req', 'of the earlier OAuth path'], rows));
nginx.kill();
for (const c of checks) await c.child.stop();
issuer.close();
echo.close();
