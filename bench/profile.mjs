// npm run bench:profile: where a distinct, uncached HTTP tools/call spends its time, in µs per
// request, from a V8 CPU profile of the server under load. Runs the unbundled build (dist/cli)
// so every sample names its source file; per-request costs are the same as the bundle's.
//   node bench/profile.mjs [--cli dist/cli/index.js] [--label after] [--era legacy|modern]
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, fmt, load, startChild, table, writeSection } from './lib.mjs';

const { values } = parseArgs({ options: { cli: { type: 'string' }, label: { type: 'string' }, era: { type: 'string' }, seconds: { type: 'string' }, cached: { type: 'boolean' } } });
const cli = values.cli ?? `${ROOT}dist/cli/index.js`;
const era = values.era ?? 'legacy';
const seconds = Number(values.seconds ?? (process.env.BENCH_QUICK === '1' ? 4 : 10));
const dataDir = mkdtempSync(join(tmpdir(), 'signet-profile-'));
const profDir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'signet-cpuprof-'));

const server = await startChild(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, cli, 'serve', '--http'], {
  SIGNET_HTTP_PORT: '0',
  SIGNET_DATA_DIR: dataDir,
  SIGNET_CACHE_ENTRIES: values.cached ? '1024' : '0',
  SIGNET_RATE_LIMIT_PER_MINUTE: '0',
  SIGNET_RATE_LIMIT_OTHER_PER_MINUTE: '0',
}, /"port":(\d+)/);
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'p', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
// Every rule id of the shipped doctrine, in turn: distinct calls, none of them an error.
const ids = readdirSync(`${ROOT}doctrine/rules`).flatMap((f) => JSON.parse(readFileSync(`${ROOT}doctrine/rules/${f}`, 'utf8')).rules.map((r) => r.id));
const body = (i) =>
  values.cached ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doctrine_get', arguments: { id: 'AUTH-001' }, ...(era === 'modern' ? { _meta: envelope } : {}) } }) :
  JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'doctrine_get', arguments: { id: ids[i % ids.length] }, ...(era === 'modern' ? { _meta: envelope } : {}) } });
const headers = era === 'modern' ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'doctrine_get' } : {};
const url = `http://127.0.0.1:${server.port}/mcp`;
await load({ url, connections: 10, duration: 2, bodies: body, headers }); // warm up (JIT)
const run = await load({ url, connections: 10, duration: seconds, bodies: body, headers });
await server.stop();

const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

// Buckets by source: what the time is spent on.
const buckets = [
  ['Signet router (src/protocol)', (u) => /\/dist\/protocol\//.test(u)],
  ['Signet HTTP edge (src/transports/http)', (u) => /\/dist\/transports\/http\//.test(u)],
  ['Signet tools + doctrine (validate, run)', (u) => /\/dist\/(tools|doctrine|schema)\//.test(u) || /node_modules\/(ajv|minisearch|json-logic-engine)\//.test(u)],
  ['Signet signing (JCS, hash, Ed25519)', (u) => /\/dist\/signing\//.test(u) || /node_modules\/safe-stable-stringify\//.test(u)],
  ['MCP SDK (per-request Server + transport)', (u) => /node_modules\/@modelcontextprotocol\//.test(u) || /node_modules\/zod\//.test(u)],
  ['Hono + @hono/node-server', (u) => /node_modules\/(hono|@hono)\//.test(u)],
  ['logging (pino)', (u) => /node_modules\/(pino|sonic-boom|fast-redact|quick-format|on-exit-leak-free|thread-stream)/.test(u)],
  ['rate limiter', (u) => /node_modules\/rate-limiter-flexible\//.test(u)],
  ['Node http, net, streams', (u) => /^node:(internal\/)?(http|_http|net|stream|internal\/streams|internal\/http|events|buffer|internal\/buffer|internal\/net|timers|internal\/timers)/.test(u) || /node:_http/.test(u)],
  ['other JavaScript', (u) => u !== ''],
];
const totals = new Map(buckets.map(([name]) => [name, 0]));
let gc = 0;
let native = 0;
let idle = 0;
for (const [id, us] of self) {
  const n = byId.get(id);
  const fn = n.callFrame.functionName;
  const u = n.callFrame.url;
  if (fn === '(idle)') idle += us;
  else if (fn === '(garbage collector)') gc += us;
  else if (fn === '(program)' || u === '') native += us;
  else totals.set(buckets.find(([, m]) => m(u))[0], totals.get(buckets.find(([, m]) => m(u))[0]) + us);
}
const requests = run.total;
const perReq = (us) => us / requests;
const rows = [...totals.entries()].filter(([, us]) => us > 0).map(([name, us]) => [name, fmt(perReq(us), 1)]);
rows.push(['native (crypto, JSON, V8 builtins)', fmt(perReq(native), 1)], ['garbage collection', fmt(perReq(gc), 1)]);
const busy = [...totals.values()].reduce((a, b) => a + b, 0) + gc + native;
rows.push(['**total busy**', `**${fmt(perReq(busy), 1)}**`], ['idle (waiting for the load generator)', fmt(perReq(idle), 1)]);
const label = values.label ?? 'after';
const md = `### ${label}: ${era === 'modern' ? '2026-07-28' : '2025'} era, ${values.cached ? 'repeated (cached)' : 'distinct uncached'} doctrine_get, 10 connections\n\n${fmt(run.rps)} req/s over ${seconds} s, ${fmt(requests)} requests; µs of server CPU per request, from a V8 CPU profile of \`${cli.replace(ROOT, '')}\`.\n\n${table(['where', 'µs per request'], rows)}`;
console.log(md);
writeSection(`profile-${label}-${era}${values.cached ? '-cached' : ''}`, md);
process.exit(0);
