// npm run packages: the two npm packages, built from this repository and packed with `npm pack`
// into dist/packages/ (publishing is `npm publish <tarball>`, outside the repository):
// - signet-mcp: the server and its CLI (`signet`), the bundle with every runtime dependency
//   inside, so it installs with no dependency at all;
// - signet-mcp-verify: the portable verifier as a library (one self-contained ES module, its
//   types) and the `signet-mcp-verify` bin; no dependency either.
// Each package's own fields are packages/<name>/package.json; version and license are the root
// package.json's, and signet-mcp takes its engines from there too (the server's one range).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The .d.ts files a declaration imports, itself included, as paths relative to dist/. */
function declarationClosure(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(ROOT, 'dist', file), 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']+)\.js'/g)) visit(join(dirname(file), `${m[1]}.d.ts`));
  };
  visit(entry);
  return [...seen].sort();
}

/** What goes into each package, copied from the repository and the build: [from, to] pairs. */
function contents(name) {
  if (name === 'signet-mcp') {
    return [
      ['dist/bundle', 'dist/bundle'],
      ...['page.html', 'page.css', 'verify.js'].map((f) => [`dist/verify-page/${f}`, `dist/verify-page/${f}`]),
      ['doctrine', 'doctrine'],
      ['docs', 'docs'],
      ['README.md', 'README.md'],
      ['SECURITY.md', 'SECURITY.md'],
      ['LICENSE', 'LICENSE'],
    ];
  }
  return [
    ['dist/verify/signet-verify.js', 'signet-verify.js'],
    ['dist/verify/signet-verify.js.LEGAL.txt', 'signet-verify.js.LEGAL.txt'],
    ...declarationClosure('signing/portable.d.ts').map((f) => [`dist/${f}`, `types/${f}`]),
    ['dist/verify/bin/signet-mcp-verify.js', 'bin/signet-mcp-verify.js'],
    ['dist/verify/bin/index.js', 'bin/index.js'],
    ['dist/verify/bin/index.js.LEGAL.txt', 'bin/index.js.LEGAL.txt'],
    ...['trust.schema.json', 'verify-report.schema.json'].map((f) => [`docs/schemas/${f}`, `schemas/${f}`]),
    ['packages/signet-mcp-verify/README.md', 'README.md'],
    ['LICENSE', 'LICENSE'],
  ];
}

export const PACKAGES = ['signet-mcp', 'signet-mcp-verify'];

/** The package's manifest: its own fields, with the root's version, license (and the server's engines). */
export function manifest(name) {
  const own = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'));
  return {
    name: own.name,
    version: root.version,
    license: root.license,
    ...own,
    ...(name === 'signet-mcp' ? { engines: root.engines } : {}),
  };
}

/** Stages each package in OUT/stage/<name>/ and packs it into OUT; returns the tarballs' paths. */
export function pack(outDir = join(ROOT, 'dist', 'packages')) {
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'signet.js'))) throw new Error('nothing built: npm run build first');
  mkdirSync(outDir, { recursive: true });
  return PACKAGES.map((name) => {
    const stage = join(outDir, 'stage', name);
    rmSync(stage, { recursive: true, force: true });
    for (const [from, to] of contents(name)) cpSync(join(ROOT, from), join(stage, to), { recursive: true });
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest(name), null, 2)}\n`);
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
        cwd: stage,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    return join(outDir, packed.filename);
  });
}

// node scripts/pack.mjs [OUT]: the tarballs' paths, one a line.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of pack(process.argv[2] && resolve(process.argv[2]))) process.stdout.write(`${relative(process.cwd(), file)}\n`);
}
