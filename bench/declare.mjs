// How many facts a reviewer still declares to complete a verdict, before and after
// `signet check --declare-template` (docs/checking.md, "Completing a verdict"). For one case of
// each kind (Compose, Kubernetes, a Dockerfile, nginx, a client configuration) and Signet's own
// Compose stack, a reviewer runs the check, fills in the template it writes, and checks again
// until no rule is undetermined. The reviewer's answers are ANSWERS below (what a reviewer of such
// a deployment would state; for Signet, its own deploy/facts/compose.json first); a fact asked
// that the book does not hold is answered with the type's cautious default and counted the same.
// "before" is what the text listed before this change: every fact an undetermined rule reads
// (summary.missing_facts), which a reader could not tell apart. Times are the commands' wall
// time (process start to exit). Prints markdown; run under the shared CPU lock:
//   npm run build && flock /tmp/signet-heavy.lock node bench/declare.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'bundle', 'signet.js');
const work = mkdtempSync(join(tmpdir(), 'signet-bench-declare-'));

/** A reviewer's answers: gates as such a deployment has them, the rest as found (illustrative, stated once per kind). */
const HTTP_SERVER_REVIEW = {
  'client.reviewed': false,
  'deployment.environment': 'production',
  'authentication.required': false,
  'authentication.method': 'none',
  'signing.offered': false,
  'exposure.reachable_from_internet': true,
  'exposure.endpoint_address_class': 'public',
  'transport.protocol_revisions': ['2025-06-18'],
  'rate_limit.enabled': false,
  'http.max_body_bytes': 4194304,
  'http.execution_deadline_seconds': 60,
  'http.request_read_deadline_seconds': 0,
};
const STDIO_LAPTOP_REVIEW = {
  'transport.kind': 'stdio',
  'deployment.replicas': 1,
  'client.launches_stdio_servers': true,
  'deployment.environment': 'development',
  'signing.offered': false,
  'transport.protocol_revisions': ['2025-06-18'],
};
/** @type {Record<string, Record<string, unknown>>} */
const ANSWERS = {
  compose: HTTP_SERVER_REVIEW,
  kubernetes: HTTP_SERVER_REVIEW,
  nginx: HTTP_SERVER_REVIEW,
  // The image alone, without the clients that launch it: limited scope at best.
  dockerfile: { ...STDIO_LAPTOP_REVIEW, 'client.reviewed': false },
  client: STDIO_LAPTOP_REVIEW,
};

/** The cautious default for a fact the book does not hold: false, the first value listed, a number. */
function fallback(placeholder) {
  if (placeholder === '<true | false>') return false;
  const listed = /^<(".*?")/.exec(placeholder);
  if (listed) return JSON.parse(listed[1]);
  if (placeholder.startsWith('<array')) return [];
  return 60;
}

function timed(args, cwd) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: work } });
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, code: r.status, out: r.stdout, err: r.stderr };
}

const leaves = (o, p = '') =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? leaves(v, `${p}${k}.`) : [[`${p}${k}`, v]]));
function setLeaf(o, path, v) {
  const parts = path.split('.');
  let n = o;
  for (const p of parts.slice(0, -1)) n = n[p] ??= {};
  n[parts.at(-1)] = v;
}

/** Fill every placeholder of a template from the book; count what was filled. */
function fill(template, book) {
  let filled = 0;
  const walk = (facts) => {
    for (const [path, v] of leaves(facts)) {
      if (typeof v !== 'string' || !/^<.*>$/s.test(v)) continue;
      setLeaf(facts, path, path in book ? book[path] : fallback(v));
      filled++;
    }
  };
  walk(template.facts ?? {});
  for (const own of Object.values(template.deployments ?? {})) walk(own);
  template.notes = (template.notes ?? []).map((n) => ({ ...n, note: n.note.startsWith('TODO') ? 'stated by the reviewer' : n.note }));
  return filled;
}

function review(name, kind, cwd, args, start, answersFrom = start) {
  const declared = join(cwd, 'signet-declared.json');
  const template = join(cwd, 'template.json');
  // Before: the facts the old text listed (every fact an undetermined rule reads).
  const first = timed(['check', ...args, ...(start ? ['--facts', start] : []), '--format', 'json'], cwd);
  const report = JSON.parse(first.out);
  const before = new Set(report.deployments.flatMap((d) => d.summary.missing_facts)).size;
  const book = {
    ...ANSWERS[kind],
    ...(answersFrom ? Object.fromEntries(leaves(JSON.parse(readFileSync(join(cwd, answersFrom), 'utf8')).facts ?? {})) : {}),
  };
  let facts = start ? [join(cwd, start)] : [];
  let declaredCount = 0;
  let rounds = 0;
  let ms = first.ms;
  let last = first;
  for (; rounds < 6; rounds++) {
    const r = timed(['check', ...args, ...(facts.length ? ['--facts', facts[0]] : []), '--declare-template', template], cwd);
    ms += r.ms;
    last = r;
    if (r.code === 2) throw new Error(`${name}: ${r.err}`);
    const t = JSON.parse(readFileSync(template, 'utf8'));
    const n = fill(t, book);
    if (n === 0) break;
    declaredCount += n;
    writeFileSync(declared, JSON.stringify(t, null, 2));
    facts = [declared];
  }
  const verdict = /^signet check: ([A-Z ]+):/.exec(last.out)?.[1] ?? `exit ${last.code}`;
  // Complete: no baseline rule left undetermined in any deployment.
  const final = JSON.parse(timed(['check', ...args, ...(facts.length ? ['--facts', facts[0]] : []), '--format', 'json'], cwd).out);
  const complete = final.deployments.every((d) => d.summary.complete);
  return `| ${name} | ${kind} | ${before} | ${declaredCount} | ${rounds} | ${(ms / 1000).toFixed(1)} | ${verdict}${complete ? ', complete' : ', NOT complete'} |`;
}

const rows = [];
const corpus = join(ROOT, 'test', 'fixtures', 'collect-corpus');
const cases = [
  ['raihan-mcp-http-template-compose', 'compose'],
  ['raihan-mcp-http-template-kubernetes', 'kubernetes'],
  ['servers-fetch-image', 'dockerfile'],
  ['trufnetwork-nginx-sse', 'nginx'],
  ['github-mcp-server-claude-desktop-docker', 'client'],
];
for (const [name, kind] of cases) {
  const c = JSON.parse(readFileSync(join(corpus, `${name}.case.json`), 'utf8'));
  const dir = join(work, name);
  for (const [path, text] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), String(text));
  }
  rows.push(review(name, kind, dir, ['.'], null));
}
const own = join(work, 'signet-own');
for (const p of ['docker-compose.yml', 'Dockerfile', 'proxy', 'package.json', 'package-lock.json', 'deploy'])
  cpSync(join(ROOT, p), join(own, p), { recursive: true });
// From nothing, the reviewer answering as Signet's own declared facts do.
rows.push(
  review(
    "Signet's compose stack, from nothing",
    'compose',
    own,
    ['docker-compose.yml', 'Dockerfile', 'proxy', 'package.json', 'package-lock.json'],
    null,
    'deploy/facts/compose.json',
  ),
);
rows.push(
  review(
    "Signet's compose stack (from deploy/facts/compose.json)",
    'compose',
    own,
    ['docker-compose.yml', 'Dockerfile', 'proxy', 'package.json', 'package-lock.json'],
    'deploy/facts/compose.json',
  ),
);
process.stdout.write(
  [
    `Completing a verdict with signet check --declare-template, node ${process.version}`,
    '',
    '| case | kind | facts listed before | facts declared after | rounds | commands s | final verdict |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
rmSync(work, { recursive: true, force: true });
