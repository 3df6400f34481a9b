// node bench/auth-check-compare.mjs BASE_DIST [THIS_DIST]: the auth check's cost per answer, this
// tree's build (default dist/) against another build's dist/ (e.g. main's), in one process. Both
// auth checks run side by side (`runAuthCheck`, the same store of 100 keys, the same issuer and
// token, the proxy secret, loopback); a raw keep-alive socket asks each exactly what nginx asks
// (GET /check, Authorization, X-Real-IP, X-Signet-Proxy-Auth) and waits for the answer, in blocks
// of BENCH_BLOCK requests, the builds and credentials interleaved block by block so that other
// work on the machine hits all alike. Reports, per answer, the process's CPU time (client,
// loopback and server: what differs is the server; waiting for a core is not counted, so a
// loaded machine skews it less) and the wall time, the ratio this/base of each per credential,
// and the load average.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchIssuer, fmt, median, ROOT, table } from './lib.mjs';

const [baseDist, thisDist = join(ROOT, 'dist')] = process.argv.slice(2);
if (!baseDist) {
  console.error('usage: node bench/auth-check-compare.mjs BASE_DIST [THIS_DIST]');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 40);
const block = Number(process.env.BENCH_BLOCK ?? 250);

const imp = (dist, p) => import(pathToFileURL(join(resolve(dist), p)).href);
const dir = mkdtempSync(join(tmpdir(), 'signet-bench-auth-'));
const { KeyStore } = await imp(thisDist, 'api-keys/store.js');
const store = new KeyStore(join(dir, 'keys.json'));
let key = '';
for (let i = 0; i < 100; i++) {
  const created = await store.create(`user-${i}`, i % 2 ? new Date(Date.now() + 90 * 86_400_000) : null);
  if (i === 1) key = created.key; // one with a lifetime: its expiry is checked per answer
}

const resource = 'https://mcp.example.org/mcp';
const bench = await benchIssuer(resource);
const issuer = bench.issuer;
const token = await bench.token('bench-user', 'signet:read signet:evaluate');
const secret = randomBytes(32).toString('hex');

async function start(dist) {
  const [{ runAuthCheck }, { createLogger }] = await Promise.all([imp(dist, 'transports/auth-check/server.js'), imp(dist, 'log.js')]);
  return runAuthCheck(
    {
      check: { mode: 'keys+oauth', host: '127.0.0.1', port: 0, failuresPerMinute: 60, failuresBurst: 20, expiryWarningDays: 14 },
      oauth: {
        mode: 'keys+oauth',
        issuer,
        resource,
        audiences: [resource],
        algorithms: ['ES256'],
        leewaySeconds: 30,
        jwksCooldownSeconds: 30,
        jwksRefreshSeconds: 600,
        caFile: null,
      },
      keyStore: store.path,
      proxySecret: secret,
      ipv6Prefix: 64,
      tls: null,
    },
    createLogger('silent'),
  );
}

/** A keep-alive connection that sends nginx's question and resolves on the (bodiless) answer. */
function asker(port, credential) {
  const request = Buffer.from(
    `GET /check HTTP/1.1\r\nHost: signet_auth_check\r\nAuthorization: Bearer ${credential}\r\nX-Real-IP: 192.0.2.7\r\nX-Signet-Proxy-Auth: ${secret}\r\n\r\n`,
  );
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let got = '';
  let done = null;
  socket.on('data', (c) => {
    got += c;
    if (got.endsWith('\r\n\r\n')) {
      const answer = got;
      got = '';
      done(answer);
    }
  });
  const ask = () =>
    new Promise((r) => {
      done = r;
      socket.write(request);
    });
  return { ask, close: () => socket.destroy() };
}

const builds = [
  ['base', await start(baseDist)],
  ['this', await start(thisDist)],
];
const credentials = [
  ['API key (store of 100)', key],
  ['OAuth token (decided before)', token],
];
const cases = [];
for (const [build, running] of builds) {
  for (const [label, credential] of credentials) {
    const a = asker(running.port, credential);
    const first = await a.ask();
    if (!first.startsWith('HTTP/1.1 204')) throw new Error(`${build} ${label}: ${first.split('\r\n')[0]}`);
    for (let i = 0; i < 2000; i++) await a.ask(); // warm-up
    cases.push({ build, label, ask: a.ask, close: a.close, wall: [], cpu: [] });
  }
}
const loads = [];
for (let r = 0; r < rounds; r++) {
  // A different order each round: no case always follows the same one.
  const order = cases.map((_, i) => (i + r) % cases.length);
  for (const i of order) {
    const c = cases[i];
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let n = 0; n < block; n++) await c.ask();
    const used = process.cpuUsage(c0);
    c.wall.push(((performance.now() - t0) * 1000) / block);
    c.cpu.push((used.user + used.system) / block);
  }
  loads.push(loadavg()[0]);
}
for (const c of cases) c.close();
for (const [, running] of builds) await running.close();
bench.close();

const rows = credentials.flatMap(([label]) => {
  const of = (build) => cases.find((c) => c.build === build && c.label === label);
  return ['cpu', 'wall'].map((what) => {
    const base = median(of('base')[what]);
    const mine = median(of('this')[what]);
    return [label, what === 'cpu' ? 'CPU' : 'wall', fmt(base, 1), fmt(mine, 1), fmt(mine - base, 1), (mine / base).toFixed(2)];
  });
});
console.log(
  `${rounds} rounds × ${block} sequential answers per case, interleaved; load average ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)} during the run`,
);
console.log(table(['credential', 'time', 'base µs/answer', 'this µs/answer', 'difference µs', 'this/base'], rows));
process.exit(0);
