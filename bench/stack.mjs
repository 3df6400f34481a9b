// npm run bench:stack: the real compose stack under load. Direct to signet, through the
// reference proxy with a static key and with the key store, and with 1 vs 3 replicas, each at
// 1, 10 and 50 connections; a bare Hono JSON echo measured in the same run is the baseline.
// Requests go to the containers' bridge addresses (no docker-proxy in the way); the rate
// limit is raised for the run.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { fmt, load, machine, ROOT, startChild, table, writeSection } from './lib.mjs';

const quick = process.env.BENCH_QUICK === '1';
const duration = quick ? 2 : 4;
const project = 'signet-bench';
const files = ['-f', `${ROOT}docker-compose.yml`, '-f', `${ROOT}bench/compose.bench.yml`];
const staticKey = execFileSync(process.execPath, [`${ROOT}dist/bundle/signet.js`, 'keys', 'new'])
  .toString()
  .trim();
const baseEnv = {
  ...process.env,
  SIGNET_PORT: '0',
  SIGNET_BACKEND_SUBNET: '10.213.253.0/24',
  SIGNET_RATE_LIMIT_PER_MINUTE: '10000000',
  SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '10000000',
  SIGNET_LOG_LEVEL: 'info',
};
const sh = (args, env = baseEnv) =>
  execFileSync('docker', args, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).toString();
const compose = (args, env) => sh(['compose', '-p', project, ...files, '--profile', 'scale', ...args], env);
const ip = (container, network) =>
  sh(['inspect', '--format', `{{(index .NetworkSettings.Networks "${project}_${network}").IPAddress}}`, container]).trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitHealthy(containers) {
  for (const c of containers) {
    for (let i = 0; i < 90; i++) {
      if (sh(['inspect', '--format', '{{.State.Health.Status}}', c]).trim() === 'healthy') break;
      await sleep(1000);
    }
  }
}

async function waitProxy(url) {
  for (let i = 0; i < 90; i++) {
    if (
      await fetch(url.replace('/mcp', '/healthz')).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(500);
  }
  throw new Error(`proxy at ${url} did not come up`);
}

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' } },
});
const rows = [];
const results = {};
async function measure(label, url, headers = {}) {
  for (const c of [1, 10, 50]) {
    const r = await load({ url, body, connections: c, duration, headers });
    results[`${label}@${c}`] = r;
    rows.push([label, String(c), fmt(r.rps), fmt(r.p50, 1), fmt(r.p99, 1), String(r.errors)]);
  }
}

try {
  console.error('building and starting the stack…');
  compose(['build', '-q']);
  // 1 replica, static key.
  // signet's one-shots (the Redis password, the proxy secret) run first; keys and the proxy later.
  compose(['up', '-d', '--scale', 'signet=1', 'signet', 'redis'], baseEnv);
  await waitHealthy([`${project}-signet-1`]);
  compose(['up', '-d', 'keys', 'proxy'], { ...baseEnv, SIGNET_API_KEY: staticKey });
  const proxyUrl = () => `http://${ip(`${project}-proxy-1`, 'frontend')}:8080/mcp`;
  await waitProxy(proxyUrl());

  const baseline = await startChild(process.execPath, [`${ROOT}bench/baseline-server.mjs`], {}, /listening on port (\d+)/);
  await measure('baseline: bare Hono JSON echo (host process)', `http://127.0.0.1:${baseline.port}/echo`);
  // Direct, as the proxy calls it: with the proxy's secret (signet refuses anything else).
  const proxySecret = sh(['exec', `${project}-signet-1`, 'cat', '/run/proxy-auth/secret']).trim();
  await measure('signet direct (1 replica)', `http://${ip(`${project}-signet-1`, 'benchnet')}:3000/mcp`, {
    'x-signet-proxy-auth': proxySecret,
  });
  await measure('proxy, static key (1 replica)', proxyUrl(), { authorization: `Bearer ${staticKey}` });

  // Key-store mode: the proxy recreated without SIGNET_API_KEY; keys init created a key.
  compose(['up', '-d', '--force-recreate', 'keys', 'proxy'], { ...baseEnv, SIGNET_API_KEY: '' });
  await waitProxy(proxyUrl());
  const storeKey = sh(['exec', `${project}-proxy-1`, 'cat', '/keys/initial-api-key']).trim();
  await measure('proxy, key store (1 replica)', proxyUrl(), { authorization: `Bearer ${storeKey}` });

  // Three replicas sharing the limit in Redis.
  compose(['up', '-d', '--no-recreate', '--scale', 'signet=3', 'signet', 'redis'], { ...baseEnv, SIGNET_API_KEY: '' });
  await waitHealthy([1, 2, 3].map((i) => `${project}-signet-${i}`));
  await sleep(6000); // the proxy re-resolves every 5 s
  await measure('proxy, key store (3 replicas, Redis limiter)', proxyUrl(), { authorization: `Bearer ${storeKey}` });
  await baseline.stop();
} finally {
  try {
    compose(['down', '-v', '--remove-orphans']);
  } catch (err) {
    console.error(String(err));
  }
}

const withRatio = rows.map((r) => {
  const base = results[`baseline: bare Hono JSON echo (host process)@${r[1]}`].rps;
  const direct = results[`signet direct (1 replica)@${r[1]}`].rps;
  const mine = results[`${r[0]}@${r[1]}`].rps;
  const overhead = r[0].startsWith('proxy') && r[0].includes('1 replica') ? `${fmt(100 * (1 - mine / direct))} %` : '';
  return [...r.slice(0, 5), `${fmt((100 * mine) / base)} %`, overhead, r[5]];
});
const out = [
  '## Whole stack (npm run bench:stack)',
  '',
  `${machine()}, ${cpus().length} cores shared by the containers, the load generator (autocannon, in the benchmark process) and the baseline; ${duration} s per row. Call: \`tools/call doctrine_get\` (a repeated call, served from the signed-result cache). Rate limit raised for the run; logs at info (one line per request).`,
  '',
  table(['path', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'of baseline', 'proxy overhead vs direct', 'errors'], withRatio),
].join('\n');
console.log(out);
writeSection('stack', out);
process.exit(0);
