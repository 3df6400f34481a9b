// npm run bench: in-process signed tools/call per tool, signing cost node:crypto vs noble,
// cold start to initialize, and HTTP tools/call against a bare Hono baseline in the same run.
import { generateKeyPairSync, sign as nodeSign, verify as nodeVerify, createPublicKey } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { createLogger } from '../dist/log.js';
import { createServer } from '../dist/server.js';
import { ROOT, fmt, load, machine, measure, measureAsync, percentile, startChild, table, writeSection } from './lib.mjs';

ed.hashes.sha512 = sha512;
const quick = process.env.BENCH_QUICK === '1';
const dataDir = mkdtempSync(join(tmpdir(), 'signet-bench-'));
const facts = (n) => JSON.parse(readFileSync(`${ROOT}test/fixtures/facts/${n}.json`, 'utf8'));
const out = [];
const log = (s) => {
  out.push(s);
  console.log(s);
};

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

// ---- In-process signed tools/call ----------------------------------------------------------
{
  const ctxFor = (env) => createContext(loadConfig({ SIGNET_DATA_DIR: dataDir, ...env }), createLogger('silent'));
  const uncached = ctxFor({ SIGNET_CACHE_ENTRIES: '0' });
  const cached = ctxFor({});
  const calls = [
    ['doctrine_info', () => ({})],
    ['doctrine_search', (i) => ({ query: ['rate limit', 'tls version', 'forwarded for', 'root user', 'api key rotation'][i % 5] })],
    ['doctrine_get', () => ({ id: 'AUTH-001' })],
    ['doctrine_evaluate (hardened, all pass)', () => ({ facts: facts('hardened') }), 'doctrine_evaluate'],
    ['doctrine_evaluate (exposed, 46 fail)', () => ({ facts: facts('exposed') }), 'doctrine_evaluate'],
    ['verify_output', null, 'verify_output'],
  ];
  const sample = cached.tools.call('doctrine_get', { id: 'AUTH-001' }).result;
  calls[5][1] = () => ({ output: sample });

  // Through the MCP SDK: Client ⇄ Server over an in-memory transport (what stdio does, minus the pipe).
  const server = createServer(uncached);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(clientSide);

  const rows = [];
  for (const [label, args, tool] of calls) {
    const name = tool ?? label;
    const n = quick ? 500 : 3000;
    // .json(): the CallToolResult bytes a transport sends, so serialisation is counted too.
    const direct = measure((i) => uncached.tools.call(name, args(i)).json(), { n });
    const viaSdk = await measureAsync((i) => client.callTool({ name, arguments: args(i) }), { n: Math.floor(n / 2) });
    const hit = measure((i) => cached.tools.call(name, args(i)).json(), { n });
    const bytes = uncached.tools.call(name, args(0)).json().length;
    rows.push([label, fmt(bytes), fmt(direct.opsPerSec), fmt(direct.p50us), fmt(direct.p99us), fmt(viaSdk.opsPerSec), fmt(viaSdk.p50us), fmt(viaSdk.p99us), fmt(hit.opsPerSec)]);
  }
  await client.close();
  log('\n## In-process signed tools/call (one core)\n');
  log('"signed call" = validate arguments, run the tool, canonicalise (RFC 8785), hash, sign with node:crypto, serialise the CallToolResult to the JSON a transport sends; no cache. "via SDK" adds the MCP Client and Server over an in-memory transport. "cache hit" is a repeated identical call.\n');
  log(table(['tool', 'result bytes', 'signed calls/s', 'p50 µs', 'p99 µs', 'via SDK calls/s', 'p50 µs', 'p99 µs', 'cache hit calls/s'], rows));
}

// ---- Cold start ------------------------------------------------------------------------------
{
  const runs = [];
  const n = quick ? 5 : 15;
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n';
  for (let i = 0; i < n + 1; i++) {
    const t0 = performance.now();
    const child = spawn(process.execPath, [`${ROOT}dist/bundle/signet.js`], { env: { ...process.env, SIGNET_DATA_DIR: dataDir, SIGNET_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.write(init);
    await new Promise((r) => child.stdout.once('data', r));
    const ms = performance.now() - t0;
    if (i > 0) runs.push(ms); // the first run fills the compile cache
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  }
  runs.sort((a, b) => a - b);
  log('\n## Cold start: spawn `signet` to initialize answered (stdio)\n');
  log(table(['runs', 'min ms', 'median ms', 'p90 ms', 'max ms'], [[String(n), fmt(runs[0]), fmt(percentile(runs, 50)), fmt(percentile(runs, 90)), fmt(runs.at(-1))]]));
}

// ---- HTTP ------------------------------------------------------------------------------------
{
  const duration = quick ? 2 : 4;
  const reps = quick ? 1 : 3;
  const signet = await startChild(process.execPath, [`${ROOT}dist/bundle/signet.js`, 'serve', '--http'], {
    SIGNET_HTTP_PORT: '0',
    SIGNET_DATA_DIR: dataDir,
    SIGNET_RATE_LIMIT_PER_MINUTE: '10000000',
    SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '10000000',
  }, /"port":(\d+)/);
  const signetUrl = `http://127.0.0.1:${signet.port}/mcp`;
  const get = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' } } });
  // The exact bytes Signet answers `get` with, for the same-size baseline.
  const sample = await fetch(signetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: get }).then((r) => r.text());
  const fixedFile = join(dataDir, 'fixed.json');
  (await import('node:fs')).writeFileSync(fixedFile, sample);
  const baseline = await startChild(process.execPath, [`${ROOT}bench/baseline-server.mjs`], { FIXED_BODY_FILE: fixedFile }, /listening on port (\d+)/);
  const scenarios = [
    ['baseline: bare Hono JSON echo', { url: `http://127.0.0.1:${baseline.port}/echo`, body: get }],
    [`baseline: bare Hono JSON, same ${fmt(sample.length)} bytes as Signet`, { url: `http://127.0.0.1:${baseline.port}/fixed`, body: get }],
    ['signet tools/call doctrine_get, repeated (cached signed result)', { url: signetUrl, body: get }],
    ['signet tools/call doctrine_search, unique queries (SDK path, signed each time)', { url: signetUrl, bodies: (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'doctrine_search', arguments: { query: `rate limit ${i}` } } }) }],
    ['signet tools/list (SDK path)', { url: signetUrl, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) }],
  ];
  const rows = [];
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const c of [1, 10, 50]) {
    // Interleave repetitions so drift on a shared machine hits every scenario alike.
    const runs = scenarios.map(() => []);
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < scenarios.length; i++) runs[i].push(await load({ ...scenarios[i][1], connections: c, duration }));
    }
    const med = runs.map((rs) => ({ rps: median(rs.map((x) => x.rps)), p50: median(rs.map((x) => x.p50)), p99: median(rs.map((x) => x.p99)), errors: rs.reduce((a, x) => a + x.errors, 0) }));
    scenarios.forEach(([label], i) => {
      const m = med[i];
      rows.push([label, String(c), fmt(m.rps), fmt(m.p50, 1), fmt(m.p99, 1), `${fmt((100 * m.rps) / med[0].rps)} %`, `${fmt((100 * m.rps) / med[1].rps)} %`, String(m.errors)]);
    });
  }
  await signet.stop();
  await baseline.stop();
  log('\n## HTTP: Signet vs bare Hono (autocannon, same machine, same run)\n');
  log(`autocannon runs in the benchmark process on the same ${cpus().length} cores as the servers; ${duration} s per run, median of ${reps} interleaved runs; latency in ms. Signet runs with its defaults (info logs, one line per request), the rate limit raised.\n`);
  log(table(['scenario', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'of echo baseline', 'of same-bytes baseline', 'errors'], rows));
}

writeSection('bench', out.join('\n'));
process.exit(0);
