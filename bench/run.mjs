// npm run bench: signing cost; in-process signed calls (the tool alone, and the whole message
// through the router in both eras); stdio cold start to the first answer in both eras; HTTP
// against a bare Hono baseline answering the same bytes (both eras, cache off with distinct
// arguments and cache on, 10 and 50 connections) with the targets set for them; memory at idle
// and after a sustained run. Every ratio is against a baseline measured in the same run.
// BENCH_QUICK=1: a short run. BENCH_SECTIONS=http,cold,...: only some sections.

import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { createLogger } from '../dist/log.js';
import { Router } from '../dist/protocol/router.js';
import { cpuUs, fmt, load, machine, measure, median, percentile, ROOT, rssKb, startChild, table, writeSection } from './lib.mjs';

ed.hashes.sha512 = sha512;
const quick = process.env.BENCH_QUICK === '1';
const sections = new Set((process.env.BENCH_SECTIONS ?? 'signing,inprocess,cold,http,memory').split(','));
const dataDir = mkdtempSync(join(tmpdir(), 'signet-bench-'));
const facts = (name) => JSON.parse(readFileSync(`${ROOT}test/fixtures/facts/${name}.json`, 'utf8'));
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
/** A tools/call message as each era sends it; the modern one also needs modernHeaders(). */
const callBody = (era, id, name, args) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: era === 'modern' ? { name, arguments: args, _meta: ENVELOPE } : { name, arguments: args },
  });
const modernHeaders = (name) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
const headersFor = (era, name) => (era === 'modern' ? modernHeaders(name) : {});

const ctxFor = (env) => createContext(loadConfig({ SIGNET_DATA_DIR: dataDir, ...env }), createLogger('silent'));
const probe = ctxFor({ SIGNET_CACHE_ENTRIES: '0' });
const ruleIds = probe.doctrine.rules.map((r) => r.id);
const hardened = facts('hardened');
/** Distinct arguments per call: every rule in turn; hardened facts with a different client count. */
const distinctArgs = {
  doctrine_get: (i) => ({ id: ruleIds[i % ruleIds.length] }),
  doctrine_evaluate: (i) => ({ facts: { ...hardened, authentication: { ...hardened.authentication, client_count: 1 + (i % 100_000) } } }),
  doctrine_search: (i) => ({ query: `rate limit ${i}` }),
};

log(
  `Machine: ${machine()}; load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (other work shares these cores). ${new Date().toISOString().slice(0, 10)}.`,
);

// ---- Signing cost ----------------------------------------------------------------------------
if (sections.has('signing')) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const msg = Buffer.from(`sha256:${'ab'.repeat(32)}`);
  const sig = nodeSign(null, msg, privateKey);
  const raw = new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(16));
  const pub = await ed.getPublicKeyAsync(raw);
  const nobleSig = ed.sign(msg, raw);
  /** @type {[string, ReturnType<typeof measure>][]} */
  const rows = [
    ['Ed25519 sign, node:crypto', measure(() => nodeSign(null, msg, privateKey), { n: quick ? 2000 : 10000 })],
    ['Ed25519 verify, node:crypto', measure(() => nodeVerify(null, msg, publicKey, sig), { n: quick ? 1000 : 5000 })],
    ['Ed25519 sign, @noble/ed25519', measure(() => ed.sign(msg, raw), { n: quick ? 100 : 500, warmup: 50 })],
    ['Ed25519 verify, @noble/ed25519', measure(() => ed.verify(nobleSig, msg, pub), { n: quick ? 50 : 200, warmup: 20 })],
  ];
  const base = rows[0][1].meanUs;
  log('\n## Signing cost\n');
  log(
    table(
      ['operation', 'µs/op (mean)', 'ops/s', 'vs node:crypto sign'],
      rows.map(([n, r]) => [n, fmt(r.meanUs, 1), fmt(r.opsPerSec), `${fmt(r.meanUs / base, 1)}×`]),
    ),
  );
}

// ---- In-process: the tool alone, and the whole message through the router -------------------
const inProcess = {};
if (sections.has('inprocess') || sections.has('http')) {
  const uncached = probe;
  const cached = ctxFor({});
  const router = new Router(uncached);
  const sample = cached.tools.call('doctrine_get', { id: 'AUTH-001' }).result;
  /** @type {[string, string, (i?: number) => Record<string, unknown>][]} */
  const calls = [
    ['doctrine_info', 'doctrine_info', () => ({})],
    ['doctrine_search (distinct queries)', 'doctrine_search', distinctArgs.doctrine_search],
    ['doctrine_get (every rule in turn)', 'doctrine_get', distinctArgs.doctrine_get],
    ['doctrine_evaluate (hardened, distinct facts)', 'doctrine_evaluate', distinctArgs.doctrine_evaluate],
    ['doctrine_evaluate (exposed)', 'doctrine_evaluate', () => ({ facts: facts('exposed') })],
    ['verify_output', 'verify_output', () => ({ output: sample })],
  ];
  const rows = [];
  const only = sections.has('inprocess') ? calls : calls.filter(([, name]) => name === 'doctrine_evaluate').slice(0, 1);
  for (const [label, name, args] of only) {
    const n = quick ? 500 : 3000;
    // .json(): the CallToolResult bytes a transport sends, so serialisation is counted too.
    const alone = measure((i) => uncached.tools.call(name, args(i)).json(), { n });
    const legacy = measure((i) => router.route(JSON.parse(callBody('legacy', i, name, args(i))), { transport: 'stdio' }).body, { n });
    const modern = measure(
      (i) =>
        router.route(JSON.parse(callBody('modern', i, name, args(i))), {
          transport: 'http',
          headers: { protocolVersion: '2026-07-28', method: 'tools/call', name },
        }).body,
      { n },
    );
    cached.tools.call(name, args(0));
    const hit = measure(() => cached.tools.call(name, args(0)).json(), { n: n * 5 });
    inProcess[label] = alone;
    rows.push([
      label,
      fmt(uncached.tools.call(name, args(0)).json().length),
      fmt(alone.opsPerSec),
      fmt(alone.p50us),
      fmt(legacy.opsPerSec),
      fmt(legacy.p50us),
      fmt(modern.opsPerSec),
      fmt(modern.p50us),
      fmt(hit.opsPerSec),
    ]);
  }
  if (sections.has('inprocess')) {
    log('\n## In-process signed tools/call (one core)\n');
    log(
      '"alone" = validate arguments, run the tool, canonicalise (RFC 8785), hash, sign with node:crypto, serialise the CallToolResult; ' +
        'no cache. "router" adds parsing the JSON-RPC text, classifying its era, checking the envelope and headers and serialising ' +
        'the response, as stdio and HTTP do. "cache hit" is a repeated identical call.\n',
    );
    log(
      table(
        [
          'tool',
          'result bytes',
          'alone calls/s',
          'p50 µs',
          'router 2025 calls/s',
          'p50 µs',
          'router 2026-07-28 calls/s',
          'p50 µs',
          'cache hit calls/s',
        ],
        rows,
      ),
    );
  }
}

// ---- Cold start ------------------------------------------------------------------------------
if (sections.has('cold')) {
  const n = quick ? 5 : 15;
  const first = {
    '2025 era (initialize)': {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
    '2026-07-28 (server/discover)': { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } },
    '2026-07-28 (first tools/call, doctrine_get)': {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' }, _meta: ENVELOPE },
    },
  };
  /** ms from spawn to the first byte on stdout (or to exit, with no line to send). */
  const time = async (args, line) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      env: { ...process.env, SIGNET_DATA_DIR: dataDir, SIGNET_LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
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
  const series = async (args, line) => {
    const runs = [];
    for (let i = 0; i < n + 1; i++) {
      const ms = await time(args, line);
      if (i > 0) runs.push(ms); // the first run fills the OS page cache and the compile cache
    }
    return runs.sort((a, b) => a - b);
  };
  const rows = [];
  const add = (label, runs) => rows.push([label, String(runs.length), fmt(runs[0]), fmt(percentile(runs, 50)), fmt(percentile(runs, 90))]);
  add('bare `node -e 0` (start and exit)', await series(['-e', '0'], null));
  for (const [label, msg] of Object.entries(first))
    add(`signet, first answer: ${label}`, await series([`${ROOT}dist/bundle/signet.js`], `${JSON.stringify(msg)}\n`));
  log('\n## Cold start: spawn `signet` on stdio to its first answer (goal: median ≤ 150 ms)\n');
  log(table(['what', 'runs', 'min ms', 'median ms', 'p90 ms'], rows));
}

// ---- HTTP ------------------------------------------------------------------------------------
const signetArgs = [`${ROOT}dist/bundle/signet.js`, 'serve', '--http'];
const httpEnv = {
  SIGNET_HTTP_PORT: '0',
  SIGNET_DATA_DIR: dataDir,
  SIGNET_RATE_LIMIT_PER_MINUTE: '0',
  SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0',
};
const url = (s) => `http://127.0.0.1:${s.port}/mcp`;

if (sections.has('http')) {
  const duration = quick ? 2 : 4;
  const reps = quick ? 1 : 3;
  const uncached = await startChild(process.execPath, signetArgs, { ...httpEnv, SIGNET_CACHE_ENTRIES: '0' }, /"port":(\d+)/);
  const cached = await startChild(process.execPath, signetArgs, httpEnv, /"port":(\d+)/);
  const get = callBody('legacy', 1, 'doctrine_get', { id: 'AUTH-001' });
  // The exact bytes Signet answers `get` with, for the same-size baseline.
  const sample = await fetch(url(cached), { method: 'POST', headers: { 'content-type': 'application/json' }, body: get }).then((r) =>
    r.text(),
  );
  const fixedFile = join(dataDir, 'fixed.json');
  writeFileSync(fixedFile, sample);
  const baseline = await startChild(
    process.execPath,
    [`${ROOT}bench/baseline-server.mjs`],
    { FIXED_BODY_FILE: fixedFile },
    /listening on port (\d+)/,
  );
  // The bound, measured: bare Hono making the same signed call in process (bench/bound-server.mjs).
  const boundEnv = { SIGNET_DATA_DIR: dataDir };
  const bound = await startChild(
    process.execPath,
    [`${ROOT}bench/bound-server.mjs`],
    { ...boundEnv, SIGNET_CACHE_ENTRIES: '0' },
    /listening on port (\d+)/,
  );
  const boundCached = await startChild(
    process.execPath,
    [`${ROOT}bench/bound-server.mjs`],
    { ...boundEnv, SIGNET_CACHE_ENTRIES: '1024' },
    /listening on port (\d+)/,
  );
  const distinct = (era, name) => (i) => callBody(era, i, name, distinctArgs[name](i));
  const scenarios = [
    // The baseline gets the same distinct request bodies, so the load generator works alike.
    [
      'baseline',
      `bare Hono, same ${fmt(sample.length)} bytes as Signet`,
      baseline,
      { url: `http://127.0.0.1:${baseline.port}/fixed`, bodies: distinct('legacy', 'doctrine_get') },
    ],
    [
      'bound',
      'bound: bare Hono + the same signed call in process, distinct ids, cache off',
      bound,
      { url: url(bound), bodies: distinct('legacy', 'doctrine_get') },
    ],
    // Cached calls repeat one body: so does their baseline, the load generator working alike again.
    [
      'baseline-fixed',
      `bare Hono, same bytes, one repeated request`,
      baseline,
      { url: `http://127.0.0.1:${baseline.port}/fixed`, body: get },
    ],
    ['bound-cached', 'bound: bare Hono + the same call from the cache, repeated', boundCached, { url: url(boundCached), body: get }],
    [
      'bound-eval',
      'bound: bare Hono + the same doctrine_evaluate in process, distinct facts, cache off',
      bound,
      { url: url(bound), bodies: distinct('legacy', 'doctrine_evaluate') },
    ],
  ];
  for (const era of ['legacy', 'modern']) {
    const tag = era === 'legacy' ? '2025 era' : '2026-07-28';
    scenarios.push(
      [
        `get-${era}`,
        `doctrine_get, distinct ids, cache off, ${tag}`,
        uncached,
        { url: url(uncached), headers: headersFor(era, 'doctrine_get'), bodies: distinct(era, 'doctrine_get') },
      ],
      [
        `cached-${era}`,
        `doctrine_get, repeated, cached, ${tag}`,
        cached,
        { url: url(cached), headers: headersFor(era, 'doctrine_get'), body: callBody(era, 1, 'doctrine_get', { id: 'AUTH-001' }) },
      ],
      [
        `eval-${era}`,
        `doctrine_evaluate (hardened), distinct facts, cache off, ${tag}`,
        uncached,
        { url: url(uncached), headers: headersFor(era, 'doctrine_evaluate'), bodies: distinct(era, 'doctrine_evaluate') },
      ],
    );
  }
  const rows = [];
  const results = {};
  for (const c of [10, 50]) {
    // Interleave repetitions so drift on a shared machine hits every scenario alike.
    const runs = scenarios.map(() => []);
    for (let r = 0; r < reps; r++) {
      for (let i = 0; i < scenarios.length; i++) {
        const pid = scenarios[i][2].child.pid;
        const cpu0 = cpuUs(pid);
        const res = await load({ ...scenarios[i][3], connections: c, duration });
        runs[i].push({ ...res, cpu: (cpuUs(pid) - cpu0) / Math.max(1, res.total) });
      }
    }
    scenarios.forEach(([key, _label], i) => {
      const rs = runs[i];
      const m = {
        rps: median(rs.map((x) => x.rps)),
        p50: median(rs.map((x) => x.p50)),
        p99: median(rs.map((x) => x.p99)),
        cpu: median(rs.map((x) => x.cpu)),
        errors: rs.reduce((a, x) => a + x.errors, 0),
      };
      m.spread = rs.length > 1 ? (Math.max(...rs.map((x) => x.rps)) - Math.min(...rs.map((x) => x.rps))) / m.rps : 0;
      results[`${key}@${c}`] = m;
    });
    scenarios.forEach(([key, label]) => {
      const m = results[`${key}@${c}`];
      const b = results[`${key.startsWith('cached-') || key === 'bound-cached' ? 'baseline-fixed' : 'baseline'}@${c}`];
      const boundKey = key.startsWith('get-')
        ? 'bound'
        : key.startsWith('cached-')
          ? 'bound-cached'
          : key.startsWith('eval-')
            ? 'bound-eval'
            : null;
      const ofBound = boundKey ? `${fmt((100 * m.rps) / results[`${boundKey}@${c}`].rps)} %` : '';
      rows.push([
        label,
        String(c),
        fmt(m.rps),
        `± ${fmt(50 * m.spread)} %`,
        fmt(m.p50, 1),
        fmt(m.p99, 1),
        fmt(m.cpu, 0),
        `${fmt((100 * m.rps) / b.rps)} %`,
        ofBound,
        String(m.errors),
      ]);
    });
  }
  for (const s of [uncached, cached, baseline, bound, boundCached]) await s.stop();

  log('\n## HTTP: Signet vs bare Hono answering the same bytes (autocannon, same run)\n');
  log(
    `autocannon runs in the benchmark process on the same ${cpus().length} cores as the servers; ${duration} s per run, median ` +
      `of ${reps} interleaved runs ("spread": half the range of the runs, as a share of the median); latency in ms; "server CPU" ` +
      `is user + system time of the server process per request (/proc), which other work on the machine does not inflate the ` +
      `way it inflates req/s. Signet runs with its defaults (info logs, one line per request) and the rate limits off, so the ` +
      `numbers measure serving, not refusing.\n`,
  );
  log(
    table(
      ['scenario', 'connections', 'req/s', 'spread', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'of bare Hono', 'of the bound', 'errors'],
      rows,
    ),
  );

  const evalInProcess = inProcess['doctrine_evaluate (hardened, distinct facts)'].opsPerSec;
  const pct = (a, b) => `${fmt((100 * a) / b)} %`;
  const targets = [];
  for (const c of [10, 50]) {
    const b = results[`baseline@${c}`].rps;
    const bFixed = results[`baseline-fixed@${c}`].rps;
    const r = (k) => results[`${k}@${c}`].rps;
    targets.push(['uncached doctrine_get, share of bare Hono', '≥ 35 %', String(c), pct(r('get-legacy'), b), pct(r('get-modern'), b)]);
    targets.push(['  (the bound: bare Hono + the same call in process, share of bare Hono)', '', String(c), pct(r('bound'), b), '']);
    targets.push([
      'cached calls, share of bare Hono',
      '≥ 70 %',
      String(c),
      pct(r('cached-legacy'), bFixed),
      pct(r('cached-modern'), bFixed),
    ]);
    targets.push([
      `uncached doctrine_evaluate over HTTP, share of its in-process ${fmt(evalInProcess)}/s`,
      '≥ 80 %',
      String(c),
      pct(r('eval-legacy'), evalInProcess),
      pct(r('eval-modern'), evalInProcess),
    ]);
    targets.push([
      '  (the bound: bare Hono + the same evaluate in process, share of in-process)',
      '',
      String(c),
      pct(r('bound-eval'), evalInProcess),
      '',
    ]);
  }
  log('\n### Targets\n');
  log(table(['target', 'goal', 'connections', '2025 era', '2026-07-28'], targets));
}

// ---- Memory ----------------------------------------------------------------------------------
if (sections.has('memory')) {
  const sustain = quick ? 10 : 60;
  // The image sizes V8's heap for the container (NODE_OPTIONS in the Dockerfile); measured
  // both that way and with Node's defaults, which let the heap grow far before collecting.
  const imageNodeOptions = /NODE_OPTIONS="([^"]+)"/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1] ?? '';
  const rows = [];
  let total = 0;
  for (const [label, nodeOptions] of [
    [`as the image runs it (NODE_OPTIONS="${imageNodeOptions}")`, imageNodeOptions],
    ["Node's default heap sizing", ''],
  ]) {
    const server = await startChild(process.execPath, signetArgs, { ...httpEnv, NODE_OPTIONS: nodeOptions }, /"port":(\d+)/);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssKb(server.child.pid);
    // Distinct doctrine_search queries with the cache on: every answer is computed and then kept
    // (up to SIGNET_CACHE_ENTRIES), the worst case for memory among the tools.
    const r = await load({
      url: url(server),
      connections: 50,
      duration: sustain,
      bodies: (i) => callBody('legacy', i, 'doctrine_search', distinctArgs.doctrine_search(i)),
    });
    const after = rssKb(server.child.pid);
    await new Promise((res) => setTimeout(res, 2000));
    const settled = rssKb(server.child.pid);
    await server.stop();
    total += r.total;
    rows.push([label, fmt(idle / 1024, 1), fmt(after / 1024, 1), fmt(settled / 1024, 1), fmt(r.total), String(r.errors)]);
  }
  log('\n## Memory (RSS)\n');
  log(
    `One server with the defaults (signed-result cache of 1024 entries), ${sustain} s at 50 connections of distinct doctrine_search ` +
      `queries (${fmt(total)} requests in all).\n`,
  );
  log(table(['heap', 'idle MiB', 'after the sustained run MiB', '2 s later MiB', 'requests', 'errors'], rows));
}

if (!quick && sections.size === 5) writeSection('bench', out.join('\n'));
process.exit(0);
