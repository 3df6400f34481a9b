// npm run bench:profile: where the time of one HTTP request goes. Runs a Signet server under
// `node --cpu-prof`, loads it with autocannon (10 connections), and attributes the main
// thread's samples to the source file they come from (through the bundle's source maps), in
// µs per request. BENCH_BUNDLE=path/to/signet.js profiles another build (e.g. an older
// checkout's dist/bundle/signet.js), for before/after.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuUs, fmt, load, machine, ROOT, startChild, table, writeSection } from './lib.mjs';

const quick = process.env.BENCH_QUICK === '1';
const bundle = process.env.BENCH_BUNDLE ?? `${ROOT}dist/bundle/signet.js`;
const label = process.env.BENCH_LABEL ?? 'this build';
const duration = quick ? 3 : 8;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
// Every rule id of the shipped doctrine, in turn (an unknown id would measure the suggestion search instead).
const ids = readdirSync(`${ROOT}doctrine/rules`).flatMap((f) =>
  JSON.parse(readFileSync(`${ROOT}doctrine/rules/${f}`, 'utf8')).rules.map((r) => r.id),
);
const call = (era, id, args) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: era === 'modern' ? { name: 'doctrine_get', arguments: args, _meta: ENVELOPE } : { name: 'doctrine_get', arguments: args },
  });
const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'doctrine_get' };

/** Where a sample's code comes from, by original source path. */
function category(source, fn) {
  if (fn === '(garbage collector)') return 'garbage collection';
  if (fn === '(idle)') return 'idle (waiting for the next request)';
  if (fn === '(program)' || fn === '(root)') return 'V8 and native, unattributed';
  if (/^(writeUtf8String|writeString|writeBuffer|writev|writeLatin1String)$/.test(fn)) return 'socket and pipe writes (kernel)';
  if (fn === 'signOneShot' || source.startsWith('node:internal/crypto/sig')) return 'Ed25519 signing (node:crypto)';
  if (source.startsWith('node:internal/crypto/hash')) return 'SHA-256 (node:crypto)';
  if (/src\/signing\//.test(source) || /safe-stable-stringify|canonicalize/.test(source))
    return 'canonical JSON and signed output (src/signing)';
  if (source === '' && /^validate\d*$/.test(fn)) return 'tool: validate, run, cache (src/tools, src/doctrine)'; // Ajv's generated code
  if (/src\/(tools|doctrine|resources)/.test(source) || /node_modules\/(ajv|json-logic|minisearch|lru-cache)/.test(source))
    return 'tool: validate, run, cache (src/tools, src/doctrine)';
  if (/src\/protocol\//.test(source)) return 'router (src/protocol)';
  if (/src\/transports\/http\/|src\/log|node_modules\/(rate-limiter-flexible)/.test(source))
    return 'edge middleware and request report (src/transports/http)';
  if (/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format|pino-std)/.test(source)) return 'request log line (pino)';
  if (/node_modules\/hono\//.test(source)) return 'Hono (routing, middleware chain, context)';
  if (/node_modules\/@hono\/node-server/.test(source)) return '@hono/node-server (request/response adapter)';
  if (/node_modules\/@modelcontextprotocol|node_modules\/zod/.test(source)) return 'MCP SDK (Server, transport, zod)';
  if (source.startsWith('node:') || source === '') return 'Node.js HTTP, streams, timers, JSON';
  return 'other';
}

async function profileOne(name, env, opts) {
  const profDir = mkdtempSync(join(tmpdir(), 'signet-prof-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'signet-prof-data-'));
  const server = await startChild(
    process.execPath,
    ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', '250', bundle, 'serve', '--http'],
    {
      SIGNET_HTTP_PORT: '0',
      SIGNET_DATA_DIR: dataDir,
      SIGNET_DOCTRINE_DIR: `${ROOT}doctrine/`,
      SIGNET_RATE_LIMIT_PER_MINUTE: '0',
      SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0',
      ...env,
    },
    /"port":(\d+)/,
  );
  const url = `http://127.0.0.1:${server.port}/mcp`;
  // A build that does not serve this request (an older one, 2026-07-28) is not profiled for it.
  const probe = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...opts.headers },
    body: opts.body ?? opts.bodies(0),
  });
  if (!(await probe.text()).includes('"result"')) {
    await server.stop();
    throw new Error(`not served by this build (HTTP ${probe.status})`);
  }
  await load({ url, connections: 10, duration: 1, ...opts }); // warm-up, not profiled apart: a second of the total
  const cpu0 = cpuUs(server.child.pid);
  const r = await load({ url, connections: 10, duration, ...opts });
  const cpu = (cpuUs(server.child.pid) - cpu0) / r.total;
  await server.stop();
  const file = join(
    profDir,
    readdirSync(profDir).find((f) => f.endsWith('.cpuprofile')),
  );
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const maps = new Map();
  const mapFor = (url) => {
    if (!url.startsWith('file://')) return null;
    if (!maps.has(url)) {
      try {
        maps.set(url, new SourceMap(JSON.parse(readFileSync(`${new URL(url).pathname}.map`, 'utf8'))));
      } catch {
        maps.set(url, null);
      }
    }
    return maps.get(url);
  };
  const dt = new Map();
  for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const by = new Map();
  const debug = new Map();
  let total = 0;
  for (const n of p.nodes) {
    const t = dt.get(n.id) ?? 0;
    if (!t) continue;
    total += t;
    const cf = n.callFrame;
    let source = cf.url;
    const map = mapFor(cf.url);
    if (map) source = map.findEntry(cf.lineNumber, cf.columnNumber)?.originalSource ?? cf.url;
    const c = category(source, cf.functionName);
    by.set(c, (by.get(c) ?? 0) + t);
    if (process.env.BENCH_DEBUG === c) debug.set(`${cf.functionName} ${source}`, (debug.get(`${cf.functionName} ${source}`) ?? 0) + t);
  }
  for (const [k, v] of [...debug].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.error(`${name}: ${(v / r.total).toFixed(1)} µs ${k}`);
  // The profile spans the warm-up too: scale to the profiled run's share of all requests.
  const requests = r.total * ((duration + 1) / duration);
  return { name, rps: r.rps, cpu, perRequest: new Map([...by].map(([k, v]) => [k, v / requests])), wall: total / requests };
}

const hardened = JSON.parse(readFileSync(`${ROOT}test/fixtures/facts/hardened.json`, 'utf8'));
const evaluate = (i) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: {
      name: 'doctrine_evaluate',
      arguments: { facts: { ...hardened, authentication: { ...hardened.authentication, client_count: 1 + i } } },
    },
  });
const scenarios = [
  [
    'doctrine_get, distinct ids, cache off, 2025 era',
    { SIGNET_CACHE_ENTRIES: '0' },
    { bodies: (i) => call('legacy', i, { id: ids[i % ids.length] }) },
  ],
  [
    'doctrine_get, distinct ids, cache off, 2026-07-28',
    { SIGNET_CACHE_ENTRIES: '0' },
    { headers: modern, bodies: (i) => call('modern', i, { id: ids[i % ids.length] }) },
  ],
  ['doctrine_get, repeated, cached, 2025 era', {}, { body: call('legacy', 1, { id: 'AUTH-001' }) }],
  ['doctrine_evaluate (hardened), distinct facts, cache off, 2025 era', { SIGNET_CACHE_ENTRIES: '0' }, { bodies: evaluate }],
];
const results = [];
for (const [name, env, opts] of scenarios) {
  // An older build may not speak 2026-07-28: skip what it cannot answer.
  try {
    results.push(await profileOne(name, env, opts));
  } catch (err) {
    console.error(`${name}: ${err.message}`);
  }
}
const cats = [...new Set(results.flatMap((r) => [...r.perRequest.keys()]))].sort(
  (a, b) => (results[0].perRequest.get(b) ?? 0) - (results[0].perRequest.get(a) ?? 0),
);
const rows = cats.map((c) => [c, ...results.map((r) => fmt(r.perRequest.get(c) ?? 0, 1))]);
rows.push(['**main thread, all samples**', ...results.map((r) => `**${fmt(r.wall, 1)}**`)]);
rows.push(['server CPU (user + system, /proc)', ...results.map((r) => fmt(r.cpu, 1))]);
rows.push(['req/s while profiled', ...results.map((r) => fmt(r.rps))]);
const out = [
  `## Where the time of one request goes: ${label}`,
  '',
  `${machine()}; \`node --cpu-prof\` (250 µs sampling) on the server, autocannon with 10 connections for ${duration} s; samples ` +
    `attributed to their original source file through the bundle's source maps; µs of main-thread time per request. Samples are ` +
    `wall-clock: time the thread spends descheduled on a busy machine lands on whatever it was running (most visibly the socket ` +
    `writes, where the woken client takes over), so the server CPU row is the firmer total.`,
  '',
  table(['where', ...results.map((r) => r.name)], rows),
].join('\n');
console.log(out);
if (!quick && process.env.BENCH_SECTION) writeSection(process.env.BENCH_SECTION, out);
else if (!quick) writeFileSync(join(tmpdir(), 'signet-profile.md'), out);
process.exit(0);
