// node bench/evaluate-compare.mjs BASE_DIST [DOCTRINE_DIR[=FACTS_DIR] ...]: in-process doctrine_evaluate
// throughput (cache off, signed, serialised) of this tree's dist/ against another build's
// dist/ (e.g. main's), on the same doctrines, interleaved in one process so that the load
// other work puts on the machine hits both alike. Reports the ratio this/base per case.
// FACTS_DIR holds hardened.json and exposed.json for that doctrine (default test/fixtures/facts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, measure, ROOT, table } from './lib.mjs';

const [baseDist, ...doctrineArgs] = process.argv.slice(2);
if (!baseDist) {
  console.error('usage: node bench/evaluate-compare.mjs BASE_DIST [DOCTRINE_DIR ...]');
  process.exit(2);
}
const doctrines = (doctrineArgs.length ? doctrineArgs : [join(ROOT, 'doctrine')]).map((arg) => {
  const [dir, factsDir] = arg.split('=');
  return { dir: resolve(dir), factsDir: resolve(factsDir ?? join(ROOT, 'test/fixtures/facts')) };
});
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const n = Number(process.env.BENCH_N ?? 2000);

async function builds(dist) {
  const imp = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
  const [{ loadConfig }, { createContext }, { createLogger }] = await Promise.all([imp('config.js'), imp('context.js'), imp('log.js')]);
  return (doctrineDir) =>
    createContext(
      loadConfig({
        SIGNET_DATA_DIR: mkdtempSync(join(tmpdir(), 'signet-bench-')),
        SIGNET_CACHE_ENTRIES: '0',
        SIGNET_DOCTRINE_DIR: doctrineDir,
      }),
      createLogger('silent'),
    );
}

const sides = { base: await builds(baseDist), this: await builds(join(ROOT, 'dist')) };
const rows = [];
for (const { dir: doctrineDir, factsDir } of doctrines) {
  const facts = (n) => JSON.parse(readFileSync(join(factsDir, `${n}.json`), 'utf8'));
  /** @type {[string, () => Record<string, unknown>][]} */
  const cases = [
    ['hardened', () => ({ facts: facts('hardened') })],
    ['exposed', () => ({ facts: facts('exposed') })],
    ['empty facts', () => ({ facts: {} })],
    ['hardened, detail full', () => ({ facts: facts('hardened'), detail: 'full' })],
  ];
  const ctx = { base: sides.base(doctrineDir), this: sides.this(doctrineDir) };
  // Both sides must answer every case, and with results (not a facts-schema error), or the comparison means nothing.
  for (const [label, args] of cases) {
    for (const side of ['base', 'this']) {
      if (!ctx[side].tools.call('doctrine_evaluate', args()).result.structuredContent.ok) throw new Error(`${side}: ${label} is an error`);
    }
  }
  for (const [label, args] of cases) {
    const best = { base: 0, this: 0 };
    // Interleaved rounds, best of each: noise from other processes only ever slows a round down.
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 ? ['this', 'base'] : ['base', 'this']) {
        const m = measure(() => ctx[side].tools.call('doctrine_evaluate', args()).json(), { n, warmup: 300 });
        best[side] = Math.max(best[side], m.opsPerSec);
      }
    }
    rows.push([
      `${doctrineDir.replace(ROOT, '')} (${ctx.this.doctrine.rules.length} rules)`,
      label,
      fmt(best.base),
      fmt(best.this),
      `${fmt((best.this / best.base) * 100)} %`,
    ]);
  }
}
console.log(table(['doctrine', 'facts', 'base calls/s', 'this calls/s', 'this / base'], rows));
