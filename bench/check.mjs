// How long `signet check` takes on each kind of deployment, as a CI runs it: the built CLI as
// a process, on the collect corpus (client configurations, Compose, Kubernetes, a Dockerfile,
// nginx and Caddy) and on Signet's own Compose and Kubernetes files. Each case runs RUNS times,
// interleaved with the baseline (`signet --version`: the same process start, no work); the table
// gives medians and the ratio to the baseline. Prints markdown and writes it to
// bench/RESULTS.md (section check); run under the shared CPU lock:
//   npm run build && flock /tmp/signet-heavy.lock node bench/check.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, writeSection } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'bundle', 'signet.js');
const RUNS = Number(process.env['RUNS'] ?? 7);
const work = mkdtempSync(join(tmpdir(), 'signet-bench-check-'));

/** @param {string[]} args @param {string} cwd */
function timed(args, cwd) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: work } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { ms, code: r.status, out: r.stdout };
}

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** @type {{ name: string, kind: string, cwd: string, args: string[] }[]} */
const cases = [];
const corpus = join(ROOT, 'test', 'fixtures', 'collect-corpus');
for (const file of readdirSync(corpus)
  .filter((f) => f.endsWith('.case.json'))
  .sort()) {
  const c = JSON.parse(readFileSync(join(corpus, file), 'utf8'));
  const dir = join(work, file.replace(/\.case\.json$/, ''));
  for (const [path, text] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), String(text));
  }
  const kinds = Object.keys(c.expect).map((n) => n.split(':')[0]);
  cases.push({ name: file.replace(/\.case\.json$/, ''), kind: [...new Set(kinds)].join('+'), cwd: dir, args: Object.keys(c.files) });
}
const own = join(work, 'signet-own');
// package.json is what shows the image is Signet's (its profile applies): a clone has it.
for (const p of ['docker-compose.yml', 'Dockerfile', 'package.json', 'package-lock.json', 'proxy', 'deploy'])
  cpSync(join(ROOT, p), join(own, p), { recursive: true });
const build = ['Dockerfile', 'package.json', 'package-lock.json', 'proxy'];
cases.push({ name: "Signet's compose stack", kind: 'compose', cwd: own, args: ['docker-compose.yml', ...build] });
cases.push({
  name: "Signet's compose stack + OAuth overlay",
  kind: 'compose',
  cwd: own,
  args: ['--compose', 'docker-compose.yml,deploy/compose.oauth.yml', 'docker-compose.yml', 'deploy/compose.oauth.yml', ...build],
});
cases.push({ name: "Signet's Kubernetes manifests", kind: 'kubernetes', cwd: own, args: ['deploy/kubernetes', ...build] });

const rows = [];
for (const c of cases) {
  const check = [];
  const base = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    base.push(timed(['--version'], c.cwd).ms);
    last = timed(['check', ...c.args, '--format', 'json'], c.cwd);
    check.push(last.ms);
  }
  let summary = `exit ${last?.code}`;
  try {
    const report = JSON.parse(last?.out ?? '');
    const n = report.deployments.reduce(
      (/** @type {{f:number,p:number,u:number}} */ a, /** @type {{counts:{files:number,profile:number,undecided:number}}} */ d) => ({
        f: a.f + d.counts.files,
        p: a.p + d.counts.profile,
        u: a.u + d.counts.undecided,
      }),
      { f: 0, p: 0, u: 0 },
    );
    // What a person still has to state for a complete verdict: the facts the undetermined rules need.
    const toDeclare = new Set(report.deployments.flatMap((/** @type {{summary:{missing_facts:string[]}}} */ d) => d.summary.missing_facts));
    summary = `${report.verdict}, ${report.deployments.length} deployment(s), ${n.f} facts from files${n.p ? ` + ${n.p} from the Signet profile` : ''}, ${toDeclare.size} to declare`;
  } catch {
    /* the exit code says it */
  }
  rows.push(
    `| ${c.name} | ${c.kind} | ${median(check).toFixed(0)} | ${median(base).toFixed(0)} | ${(median(check) / median(base)).toFixed(2)} | ${summary} |`,
  );
}
const table = [
  '## signet check on each kind of deployment (node bench/check.mjs)',
  '',
  `${RUNS} runs per case, interleaved with \`signet --version\` (the same process start, no work); median ms from process start to exit, \`--format json\`; ${machine()}.`,
  '',
  '| case | kind | check ms | `signet --version` ms | ratio | result |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
process.stdout.write(table);
writeSection('check', table);
rmSync(work, { recursive: true, force: true });
