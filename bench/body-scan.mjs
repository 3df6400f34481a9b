// npm run bench:body-scan: what bounding a request body's shape costs while it is read
// (shared/json-shape.ts), against the byte-by-byte scan it replaced and JSON.parse of the same
// bytes, measured in the same run. Four bodies: a tool call with a 1 MB string argument (pen
// test M2 of issue 26), verify_output at its 25,000-value bound (M3), a doctrine_evaluate of
// 3,000 short facts, and a 2 KB tools/call as clients send them. Each scanned in 64 KB chunks,
// as the socket hands them over.
import { JsonShapeGuard } from '../dist/shared/json-shape.js';
import { ByteByByteScan } from './byte-by-byte-scan.mjs';
import { fmt, machine, measure, table, writeSection } from './lib.mjs';

const LIMITS = { maxDepth: 64, maxNodes: 100_000 };
const CHUNK = 64 * 1024;

/** Scans the chunks with a new guard of the given kind; false if it refused them. */
function scan(Guard, chunks) {
  const guard = new Guard(LIMITS);
  for (const chunk of chunks) if (guard.push(chunk) !== null) return false;
  return true;
}

const call = (name, args) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const facts = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`transport.key_${i}`, i % 3 ? 'loopback' : true]));
const BODIES = [
  ['tools/call, one 1 MB string argument (M2)', call('doctrine_search', { query: 'x'.repeat(999_800) })],
  ['verify_output, 25,000 values in its text (M3)', call('verify_output', { output: `[1,${'0,'.repeat(24_988)}0]` })],
  ['doctrine_evaluate, 3,000 short facts', call('doctrine_evaluate', { facts })],
  ['tools/call, 2 KB', call('doctrine_search', { query: 'mcp transport '.repeat(140) })],
];

const rows = [];
for (const [label, text] of BODIES) {
  const bytes = Buffer.from(text);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += CHUNK) chunks.push(bytes.subarray(i, i + CHUNK));
  if (!scan(JsonShapeGuard, chunks) || !scan(ByteByByteScan, chunks)) throw new Error(`${label}: refused by a scan`);
  const n = bytes.length > 100_000 ? 300 : 5000;
  const now = measure(() => scan(JsonShapeGuard, chunks), { n, warmup: n / 5 });
  const before = measure(() => scan(ByteByByteScan, chunks), { n, warmup: n / 5 });
  const parse = measure(() => JSON.parse(text), { n, warmup: n / 5 });
  rows.push([
    label,
    fmt(bytes.length),
    fmt(now.p50us, 1),
    fmt(before.p50us, 1),
    fmt(parse.p50us, 1),
    `${fmt(before.p50us / now.p50us, 1)}×`,
    fmt(now.p50us / parse.p50us, 2),
  ]);
}

const markdown = [
  "## Bounding a body's shape while it is read (npm run bench:body-scan)",
  '',
  `${machine()}. p50 in µs over 64 KB chunks; the byte-by-byte scan and JSON.parse of the same bytes measured in the same run.`,
  '',
  table(['body', 'bytes', 'scan (µs)', 'byte by byte (µs)', 'JSON.parse (µs)', 'faster', 'scan / parse'], rows),
].join('\n');
console.log(markdown);
writeSection('body-scan', markdown);
