// npm run bench:proxy: what authentication costs at the reference proxy. The same nginx
// configuration (proxy/render.sh) in front of a bare Hono echo, three ways:
//   static   SIGNET_API_KEY, exact header match in nginx
//   store    the hashed key store checked by njs (what Signet ships)
//   auth_request  the alternative: a verifier service on the private network, per request
// Sequential keep-alive requests timed with performance.now() (µs resolution), interleaved.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyStore } from '../dist/keys/store.js';
import { newApiKey } from '../dist/keys/format.js';
import { ROOT, fmt, machine, percentile, startChild, table, writeSection } from './lib.mjs';

const quick = process.env.BENCH_QUICK === '1';
const N = quick ? 1000 : 4000;
const REPS = quick ? 1 : 3;
const dir = mkdtempSync(join(tmpdir(), 'signet-bench-proxy-'));
const nginxBin = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => { try { readFileSync(p); return true; } catch { return false; } }) ?? 'nginx';
const njs = ['/usr/lib/nginx/modules/ngx_http_js_module.so'].find((p) => { try { readFileSync(p); return true; } catch { return false; } });

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
const verifier = await startChild(process.execPath, [`${ROOT}bench/auth-verifier.mjs`], { SIGNET_KEY_STORE: storePath }, /listening on port (\d+)/);

function render(name, port, env) {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  const r = spawn('sh', [`${ROOT}proxy/render.sh`], {
    env: {
      PATH: process.env.PATH,
      SIGNET_UPSTREAM: `127.0.0.1:${upstream.port}`,
      SIGNET_PROXY_LISTEN: `127.0.0.1:${port}`,
      SIGNET_PROXY_CONF_DIR: join(d, 'conf'),
      SIGNET_PROXY_RUNTIME_DIR: join(d, 'run'),
      SIGNET_PROXY_ACCESS_LOG: join(d, 'access.log'),
      SIGNET_PROXY_ERROR_LOG: join(d, 'error.log'),
      SIGNET_TLS_DIR: join(d, 'tls'),
      SIGNET_PROXY_WORKER_USER: 'root',
      ...(njs ? { SIGNET_PROXY_NJS_MODULE: njs } : {}),
      ...env,
    },
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => r.on('exit', (code) => (code === 0 ? resolve(join(d, 'conf')) : reject(new Error(`render ${code}`)))));
}

async function startNginx(conf, port) {
  const child = spawn(nginxBin, ['-c', join(conf, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' });
  for (let i = 0; i < 100; i++) {
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

const ports = { static: 18180, store: 18181, auth_request: 18182 };
const confStatic = await render('static', ports.static, { SIGNET_API_KEY: staticKey });
const confStore = await render('store', ports.store, { SIGNET_KEY_STORE: storePath });
// auth_request: the static rendering with its key check replaced by a subrequest to the verifier.
const confAuth = await render('auth_request', ports.auth_request, { SIGNET_API_KEY: staticKey });
{
  const f = join(confAuth, 'signet.conf');
  let conf = readFileSync(f, 'utf8');
  conf = conf.replace(/        if \(\$http_authorization != "Bearer [^"]+"\) \{\n[^\n]*\n        \}\n/, '        auth_request /_signet_verify;\n');
  conf = conf.replace('    location = /healthz {', `    location = /_signet_verify {\n        internal;\n        proxy_pass http://127.0.0.1:${verifier.port}/verify;\n        proxy_pass_request_body off;\n        proxy_set_header Content-Length "";\n        proxy_http_version 1.1;\n        proxy_set_header Connection "";\n    }\n\n    location = /healthz {`);
  if (!conf.includes('auth_request /_signet_verify;')) throw new Error('auth_request rewrite failed');
  writeFileSync(f, conf);
}
const nginx = [await startNginx(confStatic, ports.static), await startNginx(confStore, ports.store), await startNginx(confAuth, ports.auth_request)];

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
function timed(port, key, agent) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`status ${res.statusCode} on ${port}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const configs = [
  ['static key (nginx exact match)', ports.static, staticKey],
  ['key store, njs (shipped)', ports.store, storeKey],
  ['key store, auth_request to a verifier service', ports.auth_request, storeKey],
];
const samples = configs.map(() => []);
for (let rep = 0; rep < REPS; rep++) {
  for (let c = 0; c < configs.length; c++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 300; i++) await timed(configs[c][1], configs[c][2], agent); // warm-up
    for (let i = 0; i < N; i++) samples[c].push(await timed(configs[c][1], configs[c][2], agent));
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
const rows = configs.map(([label], i) => [label, fmt(stats[i].p50), fmt(stats[i].p99), `${stats[i].p50 - stats[0].p50 >= 0 ? '+' : ''}${fmt(stats[i].p50 - stats[0].p50)}`]);
const out = [
  '## Reference proxy: cost of authentication',
  '',
  `${machine()}; nginx (${nginxBin}, one worker per core) in front of a bare Hono echo; ${N} sequential keep-alive requests per configuration × ${REPS} interleaved runs; store of 100 keys.`,
  '',
  table(['configuration', 'p50 µs', 'p99 µs', 'p50 vs static µs'], rows),
].join('\n');
console.log(out);
writeSection('proxy-auth', out);
process.exit(0);
