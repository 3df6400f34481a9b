// npm run bench: signing cost, in-process signed calls (tool alone and through the router),
// cold start in both eras, HTTP against a bare Hono baseline answering the same bytes (both
// eras, cache on and off, 10 and 50 connections), and memory under sustained load.
// Every ratio is against a baseline measured in the same run. BENCH_QUICK=1: a short run.
import { generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { createLogger } from '../dist/log.js';
import { Router } from '../dist/protocol/router.js';
import { ROOT, fmt, load, machine, measure, percentile, rssKb, startChild, table, writeSection } from './lib.mjs';

ed.hashes.sha512 = sha512;
const quick = process.env.BENCH_QUICK === '1';
const dataDir = mkdtempSync(join(tmpdir(), 'signet-bench-'));
const facts = (n) => JSON.parse(readFileSync(`${ROOT}test/fixtures/facts/${n}.json`, 'utf8'));
const out = [];
const log = (s) => {
  out.push(s);
  console.log(s);
};
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MODERN_HEADERS = (name) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
const call = (era, id, name, args) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: era === 'modern' ? { name, arguments: args, _meta: ENVELOPE } : { name, arguments: args } });

log(`Machine: ${machine()}. ${new Date().toISOString().slice(0, 10)}.`);

// ---- Signing cost -------------------------------------------------------------------------
{
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const msg = Buffer.from('sha256:' + 'ab'.repeat(32));
  const sig = nodeSign(null, msg, privateKey);
  const raw = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(raw.d, 'base64url');
  const pub = Buffer.from(raw.x, 'base64url');
  const rows = [
    ['Ed25519 sign, node:crypto', measure(() => nodeSign(null, msg, privateKey), { n: 5000 })],
    ['Ed25519 verify, node:crypto', measure(() => nodeVerify(null, msg, publicKey, sig), { n: 3000 })],
    ['Ed25519 sign, @noble/ed25519', measure(() => ed.sign(msg, seed), { n: 500, warmup: 50 })],
    ['Ed25519 verify, @noble/ed25519', measure(() => ed.verify(sig, msg, pub), { n: 300, warmup: 30 })],
  ];
  const base = rows[0][1].meanUs;
  log('\n## Signing cost\n');
  log(table(['operation', 'µs/op (mean)', 'ops/s', 'vs node:crypto sign'], rows.map(([n, r]) => [n, fmt(r.meanUs, 1), fmt(r.opsPerSec), `${fmt(r.meanUs / base, 1)}×`])));
}

// ---- In-process: the tool alone, and the whole message through the router ---------------------
const inProcess = {};
{
  const ctxFor = (env) => createContext(loadConfig({ SIGNET_DATA_DIR: dataDir, ...env }), createLogger('silent'));
  const uncached = ctxFor({ SIGNET_CACHE_ENTRIES: '0' });
  const cached = ctxFor({});
  const routerUncached = new Router(uncached);
  const ruleIds = uncached.doctrine.rules.map((r) => r.id);
  const calls = [
    ['doctrine_info', () => ({})],
    ['doctrine_search', (i) => ({ query: ['rate limit', 'tls version', 'forwarded for', 'root user', 'api key rotation'][i % 5] })],
    ['doctrine_get', (i) => ({ id: ruleIds[i % ruleIds.length] })],
    ['doctrine_evaluate (hardened, all pass)', () => ({ facts: facts('hardened') }), 'doctrine_evaluate'],
    ['doctrine_evaluate (exposed)', () => ({ facts: facts('exposed') }), 'doctrine_evaluate'],
    ['verify_output', null, 'verify_output'],
  ];
  const sample = cached.tools.call('doctrine_get', { id: 'AUTH-001' }).result;
  calls[5][1] = () => ({ output: sample });
  const rows = [];
  for (const [label, args, tool] of calls) {
    const name = tool ?? label;
    const n = quick ? 500 : 3000;
    // .json(): the CallToolResult bytes a transport sends, so serialisation is counted too.
    const direct = measure((i) => uncached.tools.call(name, args(i)).json(), { n });
    const legacy = measure((i) => routerUncached.route(JSON.parse(call('legacy', i, name, args(i))), { transport: 'stdio' }).body, { n });
    const modern = measure(
      (i) => routerUncached.route(JSON.parse(call('modern', i, name, args(i))), { transport: 'http', headers: { protocolVersion: '2026-07-28', method: 'tools/call', name } }).body,
      { n },
    );
    const hit = measure((i) => cached.tools.call(name, args(i)).json(), { n });
    const bytes = uncached.tools.call(name, args(0)).json().length;
    inProcess[label] = direct;
    rows.push([label, fmt(bytes), fmt(direct.opsPerSec), fmt(direct.p50us), fmt(legacy.opsPerSec), fmt(legacy.p50us), fmt(modern.opsPerSec), fmt(modern.p50us), fmt(hit.opsPerSec)]);
  }
  log('\n## In-process signed tools/call (one core)\n');
  log('"signed call" = validate arguments, run the tool, canonicalise (RFC 8785), hash, sign with node:crypto, serialise the CallToolResult; no cache. "router" adds parsing the JSON-RPC message, classifying its era and serialising the response, as HTTP and stdio do. "cache hit" is a repeated identical call.\n');
  log(table(['tool', 'result bytes', 'signed calls/s', 'p50 µs', 'router 2025 calls/s', 'p50 µs', 'router 2026-07-28 calls/s', 'p50 µs', 'cache hit calls/s'], rows));
}

// ---- Cold start ------------------------------------------------------------------------------
{
  const rows = [];
  const n = quick ? 5 : 15;
  const first = {
    '2025 (initialize)': { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
    '2026-07-28 (server/discover)': { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } },
  };
  const time = async (cmd, args, line) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: { ...process.env, SIGNET_DATA_DIR: dataDir, SIGNET_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise((r) => child.once('exit', r));
    if (line) {
      child.stdin.write(line);
      await new Promise((r) => child.stdout.once('data', r));
    } else await exited;
    const ms = performance.now() - t0;
    child.stdin.end();
    await exited;
    return ms;
  };
  const bare = [];
  for (let i = 0; i < n; i++) bare.push(await time(process.execPath, ['-e', '0'], null));
  bare.sort((a, b) => a - b);
  rows.push(['bare `node -e 0` (process start and exit)', String(n), fmt(bare[0]), fmt(percentile(bare, 50)), fmt(percentile(bare, 90))]);
  for (const [label, msg] of Object.entries(first)) {
    const runs = [];
    for (let i = 0; i < n + 1; i++) {
      const ms = await time(process.execPath, [`${ROOT}dist/bundle/signet.js`], JSON.stringify(msg) + '\n');
      if (i > 0) runs.push(ms); // the first run fills the compile cache
    }
    runs.sort((a, b) => a - b);
    rows.push([`signet, first answer: ${label}`, String(n), fmt(runs[0]), fmt(percentile(runs, 50)), fmt(percentile(runs, 90))]);
  }
  log('\n## Cold start: spawn `signet` on stdio to its first answer\n');
  log(table(['what', 'runs', 'min ms', 'median ms', 'p90 ms'], rows));
}

// ---- HTTP ------------------------------------------------------------------------------------
{
  const duration = quick ? 2 : 4;
  const reps = quick ? 1 : 3;
  const env = { SIGNET_HTTP_PORT: '0', SIGNET_DATA_DIR: dataDir, SIGNET_RATE_LIMIT_PER_MINUTE: '0', SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0' };
  const uncached = await startChild(process.execPath, [`${ROOT}dist/bundle/signet.js`, 'serve', '--http'], { ...env, SIGNET_CACHE_ENTRIES: '0' }, /"port":(\d+)/);
  const cached = await startChild(process.execPath, [`${ROOT}dist/bundle/signet.js`, 'serve', '--http'], env, /"port":(\d+)/);
  const url = (s) => `http://127.0.0.1:${s.port}/mcp`;
  const ctx = createContext(loadConfig({ SIGNET_DATA_DIR: dataDir }), createLogger('silent'));
  const ids = ctx.doctrine.rules.map((r) => r.id);
  const get = call('legacy', 1, 'doctrine_get', { id: 'AUTH-001' });
  // The exact bytes Signet answers `get` with, for the same-size baseline.
  const sample = await fetch(url(cached), { method: 'POST', headers: { 'content-type': 'application/json' }, body: get }).then((r) => r.text());
  const fixedFile = join(dataDir, 'fixed.json');
  writeFileSync(fixedFile, sample);
  const baseline = await startChild(process.execPath, [`${ROOT}bench/baseline-server.mjs`], { FIXED_BODY_FILE: fixedFile }, /listening on port (\d+)/);
  const distinct = (era, name, args) => (i) => call(era, i, name, args(i));
  const hardened = facts('hardened');
  const scenarios = [
    ['baseline', `bare Hono, same ${fmt(sample.length)} bytes as Signet`, { url: `http://127.0.0.1:${baseline.port}/fixed`, body: get }],
    ['get-2025', 'doctrine_get, distinct ids, cache off, 2025 era', { url: url(uncached), bodies: distinct('legacy', 'doctrine_get', (i) => ({ id: ids[i % ids.length] })) }],
    ['get-2026', 'doctrine_get, distinct ids, cache off, 2026-07-28', { url: url(uncached), headers: MODERN_HEADERS('doctrine_get'), bodies: distinct('modern', 'doctrine_get', (i) => ({ id: ids[i % ids.length] })) }],
    ['cached-2025', 'doctrine_get, repeated, cached, 2025 era', { url: url(cached), body: get }],
    ['cached-2026', 'doctrine_get, repeated, cached, 2026-07-28', { url: url(cached), headers: MODERN_HEADERS('doctrine_get'), body: call('modern', 1, 'doctrine_get', { id: 'AUTH-001' }) }],
    ['eval-2025', 'doctrine_evaluate (hardened), cache off, 2025 era', { url: url(uncached), body: call('legacy', 1, 'doctrine_evaluate', { facts: hardened }) }],
    ['eval-2026', 'doctrine_evaluate (hardened), cache off, 2026-07-28', { url: url(uncached), headers: MODERN_HEADERS('doctrine_evaluate'), body: call('modern', 1, 'doctrine_evaluate', { facts: hardened }) }],
  ];
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows = [];
  const results = {};
  const idleRss = { uncached: rssKb(uncached.child.pid), cached: rssKb(cached.child.pid) };
  for (const c of [10, 50]) {
    // Interleave repetitions so drift on a shared machine hits every scenario alike.
    const runs = scenarios.map(() => []);
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < scenarios.length; i++) runs[i].push(await load({ ...scenarios[i][2], connections: c, duration }));
    }
    const med = runs.map((rs) => ({ rps: median(rs.map((x) => x.rps)), p50: median(rs.map((x) => x.p50)), p99: median(rs.map((x) => x.p99)), errors: rs.reduce((a, x) => a + x.errors, 0) }));
    scenarios.forEach(([key, label], i) => {
      const m = med[i];
      results[`${key}@${c}`] = m;
      rows.push([label, String(c), fmt(m.rps), fmt(m.p50, 1), fmt(m.p99, 1), `${fmt((100 * m.rps) / med[0].rps)} %`, String(m.errors)]);
    });
  }
  log('\n## HTTP: Signet vs bare Hono answering the same bytes (autocannon, same run)\n');
  log(`autocannon runs in the benchmark process on the same ${cpus().length} cores as the servers; ${duration} s per run, median of ${reps} interleaved runs; latency in ms. Signet runs with its defaults (info logs, one line per request) and the rate limits off, so the numbers measure serving, not refusing.\n`);
  log(table(['scenario', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'of bare Hono', 'errors'], rows));

  const evalInProcess = inProcess['doctrine_evaluate (hardened, all pass)'].opsPerSec;
  const pct = (a, b) => `${fmt((100 * a) / b)} %`;
  const targets = [];
  for (const c of [10, 50]) {
    const b = results[`baseline@${c}`].rps;
    targets.push([`uncached doctrine_get, share of bare Hono (goal ≥ 35 %)`, String(c), pct(results[`get-2025@${c}`].rps, b), pct(results[`get-2026@${c}`].rps, b)]);
    targets.push([`cached calls, share of bare Hono (goal ≥ 70 %)`, String(c), pct(results[`cached-2025@${c}`].rps, b), pct(results[`cached-2026@${c}`].rps, b)]);
    targets.push([`uncached doctrine_evaluate over HTTP, share of in-process ${fmt(evalInProcess)}/s (goal ≥ 80 %)`, String(c), pct(results[`eval-2025@${c}`].rps, evalInProcess), pct(results[`eval-2026@${c}`].rps, evalInProcess)]);
  }
  log('\n### Targets\n');
  log(table(['target', 'connections', '2025 era', '2026-07-28'], targets));

  // Memory: RSS at idle, then after a sustained run of distinct uncached calls.
  const sustain = quick ? 10 : 60;
  await load({ url: url(uncached), connections: 50, duration: sustain, bodies: distinct('legacy', 'doctrine_get', (i) => ({ id: ids[i % ids.length] })) });
  const afterUncached = rssKb(uncached.child.pid);
  await load({ url: url(cached), connections: 50, duration: sustain, bodies: (i) => call('legacy', i, 'doctrine_search', { query: `rate limit ${i}` }) });
  const afterCached = rssKb(cached.child.pid);
  log('\n### Memory (RSS)\n');
  log(`After the runs above and ${sustain} s more at 50 connections: distinct doctrine_get with the cache off, and distinct doctrine_search queries with the cache on (1024 entries, bounded).\n`);
  log(table(['server', 'idle MiB', `after sustained load MiB`], [
    ['cache off', fmt(idleRss.uncached / 1024, 1), fmt(afterUncached / 1024, 1)],
    ['cache on (1024 entries)', fmt(idleRss.cached / 1024, 1), fmt(afterCached / 1024, 1)],
  ]));
  await uncached.stop();
  await cached.stop();
  await baseline.stop();
}

writeSection('bench', out.join('\n'));
process.exit(0);
